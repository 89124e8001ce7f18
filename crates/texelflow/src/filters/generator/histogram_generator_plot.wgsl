// Pass 2 of histogram_generator: one invocation per output pixel. Column x shows bin
// floor((x + 1/2) 256 / width) (GPUImage samples its 256-wide histogram at the pixel centre);
// row j from the bottom (1-based) is covered by a channel's bar when j <= its height.
@group(0) @binding(0) var<storage, read> bars: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> hp: HistogramGeneratorParams;

@compute @workgroup_size(256)
fn plot(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= hp.width * hp.height) {
        return;
    }
    let x = i % hp.width;
    let j = hp.height - i / hp.width;
    let bin = ((2u * x + 1u) * 256u) / (2u * hp.width);
    var covered: vec3<bool>;
    if (hp.mode == 0u) {
        covered = vec3<bool>(j <= bars[bin], j <= bars[256u + bin], j <= bars[512u + bin]);
    } else {
        covered = vec3<bool>(j <= bars[768u + bin]);
    }
    if (any(covered)) {
        dst[i] = select(0u, 0xFFu, covered.x) | select(0u, 0xFF00u, covered.y) | select(0u, 0xFF0000u, covered.z) | 0xFF000000u;
    } else {
        dst[i] = hp.background;
    }
}
