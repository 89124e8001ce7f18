// Whether an RGBA8 image is grey and opaque, as `io::codec::is_grey_opaque` asks before a JPEG
// encode (one component or three): bit 0 of `cflag[0]` set where R, G and B differ somewhere,
// bit 1 where alpha is not 255 somewhere. Four pixels an invocation; one atomic a workgroup.

@group(0) @binding(0) var<storage, read> px: array<u32>;
@group(0) @binding(1) var<storage, read_write> cflag: array<atomic<u32>>;
// x: pixels
@group(0) @binding(2) var<uniform> cu: vec4<u32>;

var<workgroup> wflag: atomic<u32>;

@compute @workgroup_size(256)
fn classify(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let first = linear_id(wid, nwg, lid, 256u) * 4u;
    var f = 0u;
    for (var k = 0u; k < 4u; k++) {
        let j = first + k;
        if (j < cu.x) {
            let p = px[j];
            let r = p & 255u;
            let g = (p >> 8u) & 255u;
            let b = (p >> 16u) & 255u;
            f |= select(0u, 1u, r != g || g != b) | select(0u, 2u, (p >> 24u) != 255u);
        }
    }
    if (f != 0u) {
        atomicOr(&wflag, f);
    }
    workgroupBarrier();
    if (lid == 0u) {
        let w = atomicLoad(&wflag);
        if (w != 0u) {
            atomicOr(&cflag[0], w);
        }
    }
}
