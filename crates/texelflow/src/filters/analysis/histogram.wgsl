// 256-bin histograms of R, G, B, Y (BT.601 luma) and A, channel-major, in the
// `DataKind::Histogram` layout. CPU twin: `histogram_cpu` in histogram.rs. Needs grid.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `HISTOGRAM_WG` in histogram.rs.
const HISTOGRAM_WG: u32 = 256u;

// The workgroup's private histogram, COPIES copies interleaved (bin b of copy k at
// b * COPIES + k; COPIES is generated beside `visit_pixels`, schedule suffix `x2`/`x4`): lanes
// of a subgroup add to copy lane % COPIES, so lanes whose values agree (photos: flat regions)
// serialise on one address COPIES times less often. WGSL zero-initialises workgroup memory.
var<workgroup> h: array<atomic<u32>, 1280 * COPIES>;
var<private> copy: u32;

fn hist_add(bin: u32, w: u32) {
    atomicAdd(&h[bin * COPIES + copy], w);
}

// grid.extra = 1: each pixel adds its alpha (weight=alpha), else 1.
fn weight(alpha: u32) -> u32 {
    return select(1u, alpha, grid.extra == 1u);
}

fn add_pixel(p: u32) {
    let c = unpack_u8(p);
    let w = weight(c.w);
    hist_add(c.x, w);
    hist_add(256u + c.y, w);
    hist_add(512u + c.z, w);
    hist_add(768u + luma601(c), w);
    hist_add(1024u + c.w, w);
}

// QUAD_ALPHA (generated beside `visit_pixels`; schedule names ending in `a`): a quad whose
// four alphas are equal adds its alpha bin once. Photos are opaque: there every lane of a
// subgroup adds to the one bin 255 and the atomics serialise; on noise the four are rarely
// equal and the test costs three compares a quad, the branch taken alike across lanes.
fn add_quad_alpha(a: vec4<u32>) {
    let al = a >> vec4<u32>(24u);
    if (!all(al == vec4<u32>(al.x))) {
        add_pixel(a.x);
        add_pixel(a.y);
        add_pixel(a.z);
        add_pixel(a.w);
        return;
    }
    for (var k = 0u; k < 4u; k++) {
        let c = unpack_u8(a[k]);
        let w = weight(c.w);
        hist_add(c.x, w);
        hist_add(256u + c.y, w);
        hist_add(512u + c.z, w);
        hist_add(768u + luma601(c), w);
    }
    hist_add(1024u + al.x, 4u * weight(al.x));
}

// `visit_pixels` is generated (LoopShape in analysis/mod.rs): the grid-stride loop and the tail.
@compute @workgroup_size(256)
fn histogram(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let gid = wid.x * HISTOGRAM_WG + lid;
    copy = lid % COPIES;
    visit_pixels(gid);
    workgroupBarrier();
    // Merge: each invocation owns 5 bins (their copies summed); empty bins cost no global atomic.
    for (var j = 0u; j < 5u; j++) {
        let i = lid + j * HISTOGRAM_WG;
        var v = 0u;
        for (var k = 0u; k < COPIES; k++) {
            v += atomicLoad(&h[i * COPIES + k]);
        }
        if (v != 0u) {
            atomicAdd(&bins[i], v);
        }
    }
}
