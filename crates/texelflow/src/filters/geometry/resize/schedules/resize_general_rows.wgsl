// Schedule `general_rows` of the separable methods (bicubic, lanczos3) when no side shrinks:
// the values of resize_general.wgsl (and of the twin `general_pixel`), with the work shared as
// the bilinear `rows` schedule shares it. Follows resize_taps.wgsl and one of the store
// snippets (`dst` and `store_cols`: one store of the COLS pixels where the part's rows allow
// it, else 4-byte stores).
//
// An invocation owns COLS consecutive output columns (4 or 2) and walks RB output rows down. Per
// column it computes the taps once; enlarging, the columns' taps lie within SPAN = TAPS + COLS - 1
// source pixels from the first column's first tap, so a source row is read as SPAN pixels and each
// column's horizontal sum runs over all of them, with weight 0 outside its own taps. The sum
// meets the twin's terms in the twin's order, and the others add an exact 0 (the twin's `row`,
// bit for bit). The TAPS horizontal sums of the rows under the current output row stay in
// registers; moving down one output row shifts them by the rows its first tap advanced (0 or
// 1 when enlarging) and reads only the new ones. Per output pixel at 2x (RB = 16, bicubic):
// 4 vertical products, ~3 horizontal products of 7 and ~0.6 loads, against the direct
// kernel's 16 loads and 20 products and `general_tile`'s 4-byte stores.

const TAPS: u32 = 4u; // @specialize taps per axis: 4 bicubic, 6 lanczos3
const COLS: u32 = 4u; // @specialize output columns per invocation: 4 or 2
const SPAN: u32 = TAPS + COLS - 1u;
const WG: u32 = 64u; // invocations per workgroup (mirrors @workgroup_size)
const RB: u32 = 16u; // @specialize output rows per invocation

// The horizontal sums of one source row at the invocation's columns.
struct Hrow {
    c: array<vec4<f32>, COLS>,
}

// The columns' weights over the SPAN source pixels from `first0` (0 outside a column's taps).
var<private> wcol: array<array<f32, SPAN>, COLS>;
var<private> first0: i32;

fn hrow(y: i32) -> Hrow {
    var p: array<vec4<f32>, SPAN>;
    for (var k = 0u; k < SPAN; k++) {
        p[k] = texel(first0 + i32(k), y);
    }
    var h: Hrow;
    for (var c = 0u; c < COLS; c++) {
        var row = vec4<f32>(0.0);
        for (var k = 0u; k < SPAN; k++) {
            row += p[k] * wcol[c][k];
        }
        h.c[c] = row;
    }
    return h;
}

fn round_px(acc: vec4<f32>) -> u32 {
    return pack_u8(vec4<u32>(clamp(floor(acc + 0.5), vec4<f32>(0.0), vec4<f32>(255.0))));
}

@compute @workgroup_size(64)
fn resize_general_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let quad = wid.x * WG + lid;
    let px0 = quad * COLS;
    if (px0 >= params.part_width) { return; }
    var ox = 0u;
    var oy = 0u;
    if (WINDOW == 1u) {
        ox = params.out_x0;
        oy = params.out_y0;
    }
    // the columns' taps (columns past the part repeat its last one: computed, not stored)
    for (var c = 0u; c < COLS; c++) {
        let t = axis_taps(min(px0 + c, params.part_width - 1u) + ox, params.in_width, params.out_width, params.scale_x, params.corner_x, params.inv_x);
        if (c == 0u) { first0 = t.first; }
        let d = t.first - first0;
        for (var k = 0u; k < SPAN; k++) {
            var w = 0.0;
            for (var i = 0u; i < TAPS; i++) {
                w = select(w, t.w[i], i32(k) == d + i32(i));
            }
            wcol[c][k] = w;
        }
    }
    let y_first = wid.y * RB;
    let y_end = min(y_first + RB, params.part_height);
    // the horizontal sums of source rows cur .. cur + TAPS - 1 (clamped when read)
    var win: array<Hrow, TAPS>;
    var cur = axis_taps(y_first + oy, params.in_height, params.out_height, params.scale_y, params.corner_y, params.inv_y).first;
    for (var j = 0u; j < TAPS; j++) {
        win[j] = hrow(cur + i32(j));
    }
    for (var y = y_first; y < y_end; y++) {
        let ty = axis_taps(y + oy, params.in_height, params.out_height, params.scale_y, params.corner_y, params.inv_y);
        if (ty.first - cur >= i32(TAPS)) {
            cur = ty.first;
            for (var j = 0u; j < TAPS; j++) {
                win[j] = hrow(cur + i32(j));
            }
        }
        while (cur < ty.first) {
            for (var j = 0u; j + 1u < TAPS; j++) {
                win[j] = win[j + 1u];
            }
            cur += 1;
            win[TAPS - 1u] = hrow(cur + i32(TAPS) - 1);
        }
        var o = vec4<u32>(0u);
        for (var c = 0u; c < COLS; c++) {
            var acc = vec4<f32>(0.0);
            for (var j = 0u; j < TAPS; j++) {
                acc += win[j].c[c] * ty.w[j];
            }
            o[c] = round_px(acc);
        }
        store_cols(y * params.part_width, px0, o);
    }
}
