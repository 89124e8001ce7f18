// Box blur, "blocks" schedules, first pass: per 16-byte group of 4 columns (gid.x) and block
// of BLK rows (gid.y), the block's column sums packed two channels per word as the walk in
// box_blur_blocks.wgsl keeps them (lo: R|B<<16, hi: G|A<<16; at most BLK*255 per lane).
// Stored at blk[2*(block*width4 + group)] (lo) and +1 (hi). Only for width % 4 == 0.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> blk: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> sp: BoxSweepParams;

const BLK: u32 = 8u; // @specialize
const LO: u32 = 0x00FF00FFu;

@compute @workgroup_size(64)
fn block_sums(@builtin(global_invocation_id) gid: vec3<u32>) {
    let g = gid.x;
    if (g >= sp.width4) {
        return;
    }
    let y0 = gid.y * BLK;
    var q: array<vec4<u32>, BLK>;
    for (var k = 0u; k < BLK; k++) {
        q[k] = src[min(y0 + k, sp.height - 1u) * sp.width4 + g];
    }
    var lo = vec4<u32>(0u);
    var hi = vec4<u32>(0u);
    for (var k = 0u; k < BLK; k++) {
        if (y0 + k < sp.height) {
            lo += q[k] & vec4<u32>(LO);
            hi += (q[k] >> vec4<u32>(8u)) & vec4<u32>(LO);
        }
    }
    let o = 2u * (gid.y * sp.width4 + g);
    blk[o] = lo;
    blk[o + 1u] = hi;
}
