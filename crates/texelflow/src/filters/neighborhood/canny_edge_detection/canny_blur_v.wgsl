// Canny, Gaussian blur, vertical pass over the horizontal sums, edge rows replicated, rounded
// once to 8 bits: (sum + 2^23) >> 24 (at most 255 * 4096² + 2^23 < 2^32). One invocation per
// packed output word (4 pixels).
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<u32>;
@group(0) @binding(3) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_blur_v(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= params.words * params.height) { return; }
    let y = i32(i / params.words);
    let x0 = (i - u32(y) * params.words) * 4u;
    let r = i32(params.radius);
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let x = x0 + k;
        if (x < params.width) {
            var sum = 0u;
            for (var j = -r; j <= r; j++) {
                let cy = u32(clamp(y + j, 0, i32(params.height) - 1));
                sum += weights[u32(j + r)] * src[cy * params.width + x];
            }
            word |= ((sum + (1u << 23u)) >> 24u) << (8u * k);
        }
    }
    dst[i] = word;
}
