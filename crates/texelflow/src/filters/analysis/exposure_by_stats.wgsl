// R, G and B times a gain that brings the mean BT.601 luma of `stats` (a `reduce` of some
// frame, usually the previous one) to `target`, clamped to [1/max_gain, max_gain]; alpha
// kept. The gain is derived per invocation from the stats buffer (no read-back). CPU twin:
// `exposure_gain` and `exposure_cpu` in exposure_by_stats.rs, the same f32 operations.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> stats: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> p: ExposureParams;

fn wide(lo: u32, hi: u32) -> f32 {
    return f32(hi) * 4294967296.0 + f32(lo);
}

// Stats layout: Y's sum at words 18, 19; the pixel count at 20, 21.
fn gain() -> f32 {
    let sum_y = wide(stats[18], stats[19]);
    if (sum_y <= 0.0) {
        return p.max_gain;  // a black frame: as bright as allowed
    }
    return clamp(p.target_luma * 255.0 * wide(stats[20], stats[21]) / sum_y, 1.0 / p.max_gain, p.max_gain);
}

fn level(v: u32, g: f32) -> u32 {
    return u32(min(floor(f32(v) * g + 0.5), 255.0));
}

@compute @workgroup_size(16, 16)
fn exposure_by_stats(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= p.width || gid.y >= p.height) {
        return;
    }
    let g = gain();
    let i = gid.y * p.width + gid.x;
    let v = src[i];
    dst[i] = level(v & 0xFFu, g) | (level((v >> 8u) & 0xFFu, g) << 8u) | (level((v >> 16u) & 0xFFu, g) << 16u) | (v & 0xFF000000u);
}
