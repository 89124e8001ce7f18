// A caller's buffer into a graph's buffer, or back (issue 31; `io::texture`'s buffer forms): the
// words of an image in texelflow's storage layout (see `image.rs`), copied as they are.
struct BufferCopyParams {
    words: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
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
    dst[i] = src[i];
}
