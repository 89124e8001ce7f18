// A graph's last image into a caller's storage texture (issue 31; `io::texture`), the texture's
// binding declared by texture_sink_rgba8.wgsl or texture_sink_rgba16f.wgsl: RGBA8 and RGBA16 as
// stored (unorm), Gray8 as grey with alpha 1. An rgba8unorm store of k / 255 gives back k.
struct TextureSinkParams {
    width: u32,
    height: u32,
    // 0: RGBA8, 1: Gray8, 2: RGBA16
    mode: u32,
    // Gray8: words a row
    row_words: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<uniform> params: TextureSinkParams;

@compute @workgroup_size(16, 16)
fn texture_sink(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.width || g.y >= params.height) {
        return;
    }
    let i = g.y * params.width + g.x;
    var c: vec4<f32>;
    if (params.mode == 0u) {
        c = unpack4x8unorm(src[i]);
    } else if (params.mode == 1u) {
        let w = src[g.y * params.row_words + g.x / 4u];
        let v = f32((w >> (8u * (g.x % 4u))) & 255u) / 255.0;
        c = vec4<f32>(v, v, v, 1.0);
    } else {
        c = vec4<f32>(unpack2x16unorm(src[2u * i]), unpack2x16unorm(src[2u * i + 1u]));
    }
    textureStore(dst, g.xy, c);
}
