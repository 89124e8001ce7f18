// Box blur, "blocks" schedules: the sweep kernel (box_blur_sweep.wgsl, whose header explains
// the walk, the scan and the exact division) with the priming of each strip's column sums
// taken from per-block column sums instead of 2r+1 rows. A first small pass
// (box_blur_blocksum.wgsl) stores, for every 16-byte group of 4 columns and every block of
// BLK rows, the block's column sums packed like the walk's (R|B<<16, G|A<<16). Priming the
// window rows [a, b] then costs the whole blocks covering [a, b] inside the image (about
// (2r+1)/BLK of them, 32 bytes each), minus the rows of the end blocks outside the window
// (at most BLK-1 per end), plus edge rows times their replication counts. So strips can be
// short (many workgroups, little tail) at every radius. Sums stay below 2^16 per lane: at
// most 2r+1 + 2(BLK-1) rows of 255. Needs width % 4 == 0 (VEC == 1) for the block path; the
// per-pixel path (VEC == 0) primes from rows as the sweep kernel does.
//
// Not a module of its own: two fragments spliced into box_blur_sweep.wgsl by box_blur.rs
// (`record_sweep`), between the marker lines of the same names there.

// The block sums' binding, and the uniform moved past it (buffers bind first, the uniform
// last). `BLK` (rows per block) follows, written by box_blur.rs.
// @generated-begin sp_binding
@group(0) @binding(2) var<storage, read> blk: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> sp: BoxSweepParams;
// @generated-end sp_binding

// Priming from the block sums (ablation 3: none).
// @generated-begin prime
    if (ABL == 3u) {
        // bench ablation: no priming
    } else if (VEC == 1u) {
        // Every group is a whole aligned group; groups left of the image replicate column 0
        // (group 0's .x), right of it column width-1 (the last group's .w): x0 is a multiple of 4.
        let gc = u32(clamp(x0 / 4, 0, i32(sp.width4) - 1));
        let a = ybase;
        let b = ybase + i32(n_rows) - 1;
        let hm = i32(sp.height) - 1;
        let below = u32(max(0, min(b, -1) - a + 1));
        let above = u32(max(0, b - max(a, hm + 1) + 1));
        if (below > 0u) {
            let p = src[gc];
            vlo += (p & vec4<u32>(LO)) * below;
            vhi += ((p >> vec4<u32>(8u)) & vec4<u32>(LO)) * below;
        }
        if (above > 0u) {
            let p = src[u32(hm) * sp.width4 + gc];
            vlo += (p & vec4<u32>(LO)) * above;
            vhi += ((p >> vec4<u32>(8u)) & vec4<u32>(LO)) * above;
        }
        let a2 = max(a, 0);
        let b2 = min(b, hm);
        if (a2 <= b2) {
            let bs = u32(a2) / BLK;
            let be = u32(b2) / BLK;
            // whole blocks bs..=be, four at a time (loads of a batch in flight together)
            for (var k0 = bs; k0 <= be; k0 += 4u) {
                var q: array<vec4<u32>, 8>;
                for (var k = 0u; k < 4u; k++) { // @unroll
                    let bi = min(k0 + k, be);
                    q[2u * k] = blk[2u * (bi * sp.width4 + gc)];
                    q[2u * k + 1u] = blk[2u * (bi * sp.width4 + gc) + 1u];
                }
                for (var k = 0u; k < 4u; k++) { // @unroll
                    if (k0 + k <= be) {
                        vlo += q[2u * k];
                        vhi += q[2u * k + 1u];
                    }
                }
            }
            // minus rows bs*BLK .. a2-1 and b2+1 .. min(be*BLK + BLK, height) - 1, as one list
            let n_head = u32(a2) - bs * BLK;
            let n_tail = min(be * BLK + BLK, sp.height) - 1u - u32(b2);
            let n_sub = n_head + n_tail;
            var slo = vec4<u32>(0u);
            var shi = vec4<u32>(0u);
            for (var k0 = 0u; k0 < n_sub; k0 += 4u) {
                var q: array<vec4<u32>, 4>;
                for (var k = 0u; k < 4u; k++) { // @unroll
                    let i = min(k0 + k, n_sub - 1u);
                    let y = select(u32(b2) + 1u + (i - n_head), bs * BLK + i, i < n_head);
                    q[k] = src[y * sp.width4 + gc];
                }
                for (var k = 0u; k < 4u; k++) { // @unroll
                    if (k0 + k < n_sub) {
                        slo += q[k] & vec4<u32>(LO);
                        shi += (q[k] >> vec4<u32>(8u)) & vec4<u32>(LO);
                    }
                }
            }
            vlo -= slo;
            vhi -= shi;
        }
        if (x0 < 0) {
            vlo = vec4<u32>(vlo.x);
            vhi = vec4<u32>(vhi.x);
        } else if (x0 >= i32(sp.width)) {
            vlo = vec4<u32>(vlo.w);
            vhi = vec4<u32>(vhi.w);
        }
    } else {
        for (var j = 0u; j < n_rows; j++) {
            let p = load_clamped(clamp_row(ybase + i32(j)), x0);
            vlo += p & vec4<u32>(LO);
            vhi += (p >> vec4<u32>(8u)) & vec4<u32>(LO);
        }
    }
    // @generated-end prime
