// Per-channel min, max and sum of R, G, B, A and Y (BT.601 luma) over an RGBA8 image, in
// the `DataKind::Stats` layout. CPU twin: `stats_cpu` in reduce.rs.
// Needs grid.wgsl and one of subgroup_on.wgsl / subgroup_off.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> stats: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `REDUCE_WG` in reduce.rs.
const REDUCE_WG: u32 = 256u;

// Workgroup partials in the global layout's terms, so zero (WGSL's initial value of
// workgroup memory) is the identity of every slot: [0..5) max(255 - v), [5..10) max(v),
// [10..15) sum; channels r, g, b, a, y.
var<workgroup> part: array<atomic<u32>, 15>;

// Per-invocation accumulators: R, G, B, A in vectors, Y in scalars.
var<private> lo: vec4<u32>;
var<private> hi: vec4<u32>;
var<private> sum: vec4<u32>;
var<private> ylo: u32;
var<private> yhi: u32;
var<private> ysum: u32;

fn add_pixel(p: u32) {
    let c = unpack_u8(p);
    lo = min(lo, c);
    hi = max(hi, c);
    sum += c;
    let y = luma601(c);
    ylo = min(ylo, y);
    yhi = max(yhi, y);
    ysum += y;
}

// 64-bit accumulate into slots (i, i+1) = (lo, hi) words, carrying on u32 wrap-around.
fn add_wide(i: u32, v: u32) {
    if (v == 0u) { return; }
    let old = atomicAdd(&stats[i], v);
    if (old + v < old) {
        atomicAdd(&stats[i + 1u], 1u);
    }
}

// `visit_pixels` is generated (LoopShape in analysis/mod.rs): the grid-stride loop and the tail.
@compute @workgroup_size(256)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let gid = wid.x * REDUCE_WG + lid;
    lo = vec4<u32>(255u);
    hi = vec4<u32>(0u);
    sum = vec4<u32>(0u);
    ylo = 255u;
    yhi = 0u;
    ysum = 0u;
    visit_pixels(gid);
    if (gid == 0u) {
        // Every pixel is counted; the clear left the high word at zero.
        atomicStore(&stats[20], grid.count);
    }

    // Workgroup combine: subgroup reductions, then one workgroup atomic per subgroup.
    let l = sg_min4(vec4<u32>(lo.xyz, ylo));
    let la = sg_min1(lo.w);
    let h = sg_max4(vec4<u32>(hi.xyz, yhi));
    let ha = sg_max1(hi.w);
    let s = sg_add4(vec4<u32>(sum.xyz, ysum));
    let sa = sg_add1(sum.w);
    if (sg_leader(lid)) {
        atomicMax(&part[0], 255u - l.x);
        atomicMax(&part[1], 255u - l.y);
        atomicMax(&part[2], 255u - l.z);
        atomicMax(&part[3], 255u - la);
        atomicMax(&part[4], 255u - l.w);
        atomicMax(&part[5], h.x);
        atomicMax(&part[6], h.y);
        atomicMax(&part[7], h.z);
        atomicMax(&part[8], ha);
        atomicMax(&part[9], h.w);
        atomicAdd(&part[10], s.x);
        atomicAdd(&part[11], s.y);
        atomicAdd(&part[12], s.z);
        atomicAdd(&part[13], sa);
        atomicAdd(&part[14], s.w);
    }
    workgroupBarrier();
    // One global atomic per slot per workgroup, spread over 5 invocations (one per channel).
    if (lid < 5u) {
        let c = lid;
        atomicMax(&stats[4u * c], atomicLoad(&part[c]));
        atomicMax(&stats[4u * c + 1u], atomicLoad(&part[5u + c]));
        add_wide(4u * c + 2u, atomicLoad(&part[10u + c]));
    }
}
