// 256-bin histograms of R, G, B, Y (BT.601 luma) and A, channel-major, in the
// `DataKind::Histogram` layout. CPU twin: `histogram_cpu` in histogram.rs. Needs grid.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `HISTOGRAM_WG` in histogram.rs.
const HISTOGRAM_WG: u32 = 256u;

// The workgroup's private histogram; WGSL zero-initialises workgroup memory.
var<workgroup> h: array<atomic<u32>, 1280>;

// grid.extra = 1: each pixel adds its alpha (weight=alpha), else 1.
//
// RUNS (generated beside `visit_pixels`; schedule names ending in `r`): an invocation keeps
// the bin and the count of the run of equal values it is in, per channel, and adds a run with
// one atomic when it ends. Photos have runs (smooth regions, opaque alpha): lanes of a
// subgroup that hit one bin together serialise their atomics, and most of them then add
// nothing. On noise every pixel ends a run: the same atomics plus a compare per channel.
var<private> run_bin: vec4<u32>;
var<private> run_n: vec4<u32>;
var<private> run_ybin: u32;
var<private> run_yn: u32;

fn add_run(bin: u32, n: u32) {
    if (n != 0u) { atomicAdd(&h[bin], n); }
}

fn add_pixel(p: u32) {
    let c = unpack_u8(p);
    let w = select(1u, c.w, grid.extra == 1u);
    let bins = vec4<u32>(c.x, 256u + c.y, 512u + c.z, 1024u + c.w);
    let ybin = 768u + luma601(c);
    if (!RUNS) {
        atomicAdd(&h[bins.x], w);
        atomicAdd(&h[bins.y], w);
        atomicAdd(&h[bins.z], w);
        atomicAdd(&h[ybin], w);
        atomicAdd(&h[bins.w], w);
        return;
    }
    let same = bins == run_bin;
    if (!same.x) { add_run(run_bin.x, run_n.x); }
    if (!same.y) { add_run(run_bin.y, run_n.y); }
    if (!same.z) { add_run(run_bin.z, run_n.z); }
    if (!same.w) { add_run(run_bin.w, run_n.w); }
    run_n = select(vec4<u32>(w), run_n + w, same);
    run_bin = bins;
    if (ybin != run_ybin) { add_run(run_ybin, run_yn); run_yn = 0u; }
    run_yn += w;
    run_ybin = ybin;
}

// The runs still open after the last pixel (RUNS).
fn end_runs() {
    add_run(run_bin.x, run_n.x);
    add_run(run_bin.y, run_n.y);
    add_run(run_bin.z, run_n.z);
    add_run(run_bin.w, run_n.w);
    add_run(run_ybin, run_yn);
}

// `visit_pixels` is generated (LoopShape in analysis/mod.rs): the grid-stride loop and the tail.
@compute @workgroup_size(256)
fn histogram(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let gid = wid.x * HISTOGRAM_WG + lid;
    visit_pixels(gid);
    if (RUNS) { end_runs(); }
    workgroupBarrier();
    // Merge: each invocation owns 5 bins; empty bins cost no global atomic.
    for (var k = 0u; k < 5u; k++) {
        let i = lid + k * HISTOGRAM_WG;
        let v = atomicLoad(&h[i]);
        if (v != 0u) {
            atomicAdd(&bins[i], v);
        }
    }
}
