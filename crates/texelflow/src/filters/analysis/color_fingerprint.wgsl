// Colour fingerprint of an RGBA8 image in the `DataKind::Fingerprint` layout: one count per
// (block, colour) bin, bin = block + grid^2 * (R' + (G' << bits) + (B' << 2 bits)) with
// C' the top `bits` bits of each channel (assess::FingerprintLayout). CPU twin:
// `fingerprint_cpu` in color_fingerprint.rs. Needs fingerprint_bins.wgsl and its generated
// part (BINS, USE_WG, `fp_wg`).

// The uniform `FingerprintParams` is in color_fingerprint_params.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> fp: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> u: FingerprintParams;

// Schedule choice, not algorithm: mirrors `FP_WG` in color_fingerprint.rs.
const FP_WG: u32 = 256u;

fn fp_layout() -> FpLayout {
    return FpLayout(u.rows, u.cols, u.v_step, u.h_step);
}

fn add_pixel(p: u32, x: u32, y: u32) {
    fp_count(fingerprint_bin(fp_layout(), unpack_u8(p), x, y), 1u);
}

// The first `n` pixels of quad `a`, which starts at pixel index i0.
fn add_run(a: vec4<u32>, i0: u32, n: u32) {
    var y = i0 / u.width;
    var x = i0 - y * u.width;
    for (var k = 0u; k < n; k++) {
        add_pixel(a[k], x, y);
        x += 1u;
        if (x == u.width) {
            x = 0u;
            y += 1u;
        }
    }
}

@compute @workgroup_size(256)
fn color_fingerprint(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let gid = wid.x * FP_WG + lid;
    for (var q = gid; q < u.quads; q += u.stride) {
        add_run(src[q], 4u * q, 4u);
    }
    if (gid == 0u) {
        let rest = u.count - 4u * u.quads;
        if (rest > 0u) {
            add_run(src[u.quads], 4u * u.quads, rest);
        }
        fp_header(u.count);
    }
    if (USE_WG) {
        workgroupBarrier();
    }
    fp_merge(lid, FP_WG);
}
