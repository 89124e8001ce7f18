// A Gray8 result's rows re-laid for a copy into a caller's r8unorm texture (issue 31;
// `io::texture::TextureSink`): r8unorm is no storage-texture format, so the rows go to a buffer
// at the stride `copy_buffer_to_texture` takes (a multiple of 256 bytes) and are copied from
// there. The bytes are the image's own: four pixels a word, as in the graph's buffer.
struct TextureSinkR8Params {
    // words of a row in the graph's buffer (width / 4, rounded up)
    row_words: u32,
    height: u32,
    // words of a row in the copy's buffer (bytes per row / 4)
    out_words: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: TextureSinkR8Params;

@compute @workgroup_size(16, 16)
fn texture_sink_r8(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.row_words || g.y >= params.height) {
        return;
    }
    dst[g.y * params.out_words + g.x] = src[g.y * params.row_words + g.x];
}
