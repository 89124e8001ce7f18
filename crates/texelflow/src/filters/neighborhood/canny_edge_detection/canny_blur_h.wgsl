// Canny, Gaussian blur, horizontal pass: each pixel's sum of weights (fixed point, summing
// to 4096) times the grey bytes of its row, edge pixels replicated. Kept unrounded (at most
// 255 * 4096) for the vertical pass. One invocation per pixel.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<u32>;
@group(0) @binding(3) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_blur_h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= params.width * params.height) { return; }
    let y = i / params.width;
    let x = i32(i - y * params.width);
    let r = i32(params.radius);
    let row = y * params.words;
    var sum = 0u;
    for (var k = -r; k <= r; k++) {
        let cx = u32(clamp(x + k, 0, i32(params.width) - 1));
        sum += weights[u32(k + r)] * byte_of(src[row + (cx >> 2u)], cx & 3u);
    }
    dst[i] = sum;
}
