// A caller's buffer into a graph's buffer, or back (issue 31; `io::texture`'s buffer forms): the
// words of an image in texelflow's storage layout (see `image.rs`), copied as they are; the
// caller's image may start `src_at` / `dst_at` words into its buffer (a batch of images in one).
struct BufferCopyParams {
    words: u32,
    src_at: u32,
    dst_at: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: BufferCopyParams;

@compute @workgroup_size(256)
fn copy_words(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = g.x + g.y * n.x * 256u;
    if (i >= params.words) {
        return;
    }
    dst[params.dst_at + i] = src[params.src_at + i];
}
