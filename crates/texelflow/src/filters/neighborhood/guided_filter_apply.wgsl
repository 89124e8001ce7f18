// Guided filter, last pass at full resolution: q = mean_a · I + mean_b, (mean_a, mean_b)
// interpolated bilinearly from the subsampled grid (pixel centres aligned, edges clamped);
// the output keeps R, G, B and takes q as alpha.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> ab: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> gp: GuidedParams;

// The two grid indices around full-resolution coordinate `x` and the weight of the second.
fn taps(x: u32, n: u32) -> vec3<f32> {
    let u = clamp((f32(x) + 0.5) * gp.inv_scale - 0.5, 0.0, f32(n - 1u));
    let i0 = floor(u);
    return vec3<f32>(i0, min(i0 + 1.0, f32(n - 1u)), u - i0);
}

@compute @workgroup_size(16, 16, 1)
fn guided_apply(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= gp.width || g.y >= gp.height) { return; }
    let tx = taps(g.x, gp.low_width);
    let ty = taps(g.y, gp.low_height);
    let w = gp.low_width;
    let r0 = u32(ty.x) * w;
    let r1 = u32(ty.y) * w;
    let top = ab[r0 + u32(tx.x)].xy + (ab[r0 + u32(tx.y)].xy - ab[r0 + u32(tx.x)].xy) * tx.z;
    let bottom = ab[r1 + u32(tx.x)].xy + (ab[r1 + u32(tx.y)].xy - ab[r1 + u32(tx.x)].xy) * tx.z;
    let m = top + (bottom - top) * ty.z;
    let word = src[g.y * gp.width + g.x];
    let q = clamp(m.x * guide_of(word).x + m.y, 0.0, 1.0);
    dst[g.y * gp.width + g.x] = (word & 0x00ffffffu) | (u32(floor(q * 255.0 + 0.5)) << 24u);
}
