// A caller's texture into a graph's source buffer (issue 31; `io::texture`): rgba8unorm to RGBA8
// (one word a pixel; pack4x8unorm gives back the stored k exactly from textureLoad's k / 255),
// r8unorm to Gray8 (four pixels a word, rows padded to a whole word, the padding zero),
// rgba16float to RGBA16 (two words a pixel, pack2x16unorm: clamped to 0..1, to the nearest of
// 65535 steps, as the host's conversion of a float to 16 bits).
struct TextureSourceParams {
    width: u32,
    height: u32,
    // 0: RGBA8, 1: Gray8, 2: RGBA16
    mode: u32,
    // Gray8: words a row
    row_words: u32,
}

@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: TextureSourceParams;

fn unorm8(v: f32) -> u32 {
    return u32(round(clamp(v, 0.0, 1.0) * 255.0));
}

@compute @workgroup_size(16, 16)
fn texture_source(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.y >= params.height) {
        return;
    }
    if (params.mode == 1u) {
        // one invocation a word of a row
        if (g.x >= params.row_words) {
            return;
        }
        var w = 0u;
        for (var k = 0u; k < 4u; k += 1u) {
            let x = g.x * 4u + k;
            if (x < params.width) {
                w = w | (unorm8(textureLoad(src, vec2<u32>(x, g.y), 0).r) << (8u * k));
            }
        }
        dst[g.y * params.row_words + g.x] = w;
        return;
    }
    if (g.x >= params.width) {
        return;
    }
    let c = textureLoad(src, g.xy, 0);
    let i = g.y * params.width + g.x;
    if (params.mode == 0u) {
        dst[i] = pack4x8unorm(c);
    } else {
        dst[2u * i] = pack2x16unorm(c.rg);
        dst[2u * i + 1u] = pack2x16unorm(c.ba);
    }
}
