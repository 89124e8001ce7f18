// Guided filter, pass 1: the mean of I (luminance) and p (alpha) over each scale x scale block
// (edge pixels replicated past the image), stored with I² and I·p of those means.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> gp: GuidedParams;

@compute @workgroup_size(16, 16, 1)
fn guided_down(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= gp.low_width || g.y >= gp.low_height) { return; }
    var sum = vec2<f32>(0.0);
    for (var j = 0u; j < gp.scale; j++) {
        let y = min(g.y * gp.scale + j, gp.height - 1u);
        for (var i = 0u; i < gp.scale; i++) {
            let x = min(g.x * gp.scale + i, gp.width - 1u);
            sum += guide_of(src[y * gp.width + x]);
        }
    }
    let m = sum * gp.inv_block;
    dst[g.y * gp.low_width + g.x] = vec4<f32>(m.x, m.y, m.x * m.x, m.x * m.y);
}
