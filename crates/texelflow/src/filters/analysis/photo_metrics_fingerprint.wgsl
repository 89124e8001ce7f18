// photo_metrics.wgsl's hooks for the fused photo_assessment pass: the colour fingerprint of
// each tile's own pixels, counted as they load (so the image is read once for both). Needs
// fingerprint_bins.wgsl and its generated part.
//
// With FP_RUNS (generated; schedule `runs`, the default), each invocation merges runs of equal
// bins among the pixels it loads (they lie 256 halo positions, about 4 rows, apart, so in a
// smooth photo most share a bin) and adds a run with one atomic: fewer atomics on the few hot
// bins a smooth tile has, which would otherwise serialise (the lanes of a subgroup on one
// address). Without (`direct`), one atomic per pixel, as color_fingerprint.
@group(0) @binding(2) var<storage, read_write> fp: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> u: MetricsParams;

fn fp_layout() -> FpLayout {
    return FpLayout(u.fp_rows, u.fp_cols, u.fp_v_step, u.fp_h_step);
}

// The open run: its bin and how many pixels it has.
var<private> run_bin: u32 = 0u;
var<private> run_n: u32 = 0u;

fn fp_pixel(c: vec4<u32>, x: u32, y: u32) {
    let b = fingerprint_bin(fp_layout(), c, x, y);
    if (!FP_RUNS) {
        fp_count(b, 1u);
        return;
    }
    if (b == run_bin) {
        run_n += 1u;
        return;
    }
    if (run_n != 0u) {
        fp_count(run_bin, run_n);
    }
    run_bin = b;
    run_n = 1u;
}

// Before the barrier that precedes fp_finish.
fn fp_flush_run() {
    if (run_n != 0u) {
        fp_count(run_bin, run_n);
    }
    run_n = 0u;
}

fn fp_finish(lid: u32, first: bool) {
    fp_merge(lid, 256u); // the workgroup's 16 x 16 invocations
    if (first) {
        fp_header(u.width * u.height);
    }
}
