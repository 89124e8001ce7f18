// Schedule `general_tile` of the separable methods (bicubic, lanczos3; appended to
// resize_general.wgsl, whose bindings, `axis_taps` and `texel` it uses): a workgroup of 16 x 16
// outputs first interpolates along x every source row its outputs read (one row sum per source
// row and output column, in workgroup memory), then each output sums its rows along y. The
// direct kernel makes every output's row sums itself: 16 (bicubic) or 36 (lanczos3) texel reads
// and weightings per output, against about (rows / 16 + 1) * taps here. The row sums are the
// twin's `row` values (same operations in the same order), so results do not change.
// `GENERAL_TILE_ROWS` in resize.rs mirrors MAX_ROWS: the CPU checks a block's rows fit.
const MAX_ROWS: u32 = 48u;
var<workgroup> col_first: array<i32, 16>;
var<workgroup> col_w: array<array<f32, 6>, 16>;
var<workgroup> row_sums: array<vec4<f32>, 768>; // MAX_ROWS x 16 output columns

@compute @workgroup_size(16, 16)
fn resize_general_tile(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    // the block in the part made (the whole output unless WINDOW), and the part's origin
    let x0 = wid.x * 16u;
    let y0 = wid.y * 16u;
    var ox = 0u;
    var oy = 0u;
    if (WINDOW == 1u) {
        ox = params.out_x0;
        oy = params.out_y0;
    }
    // the block's column taps, once (columns past the part repeat its last one)
    if (li < 16u) {
        let t = axis_taps(min(x0 + li, params.part_width - 1u) + ox, params.in_width, params.out_width, params.scale_x, params.corner_x, params.inv_x);
        col_first[li] = t.first;
        col_w[li] = t.w;
    }
    let n = taps_count();
    // source rows from the first output row's first tap to the last output row's last one
    let r0 = axis_taps(y0 + oy, params.in_height, params.out_height, params.scale_y, params.corner_y, params.inv_y).first;
    let ylast = min(y0 + 15u, params.part_height - 1u) + oy;
    let rows = u32(axis_taps(ylast, params.in_height, params.out_height, params.scale_y, params.corner_y, params.inv_y).first - r0 + n);
    workgroupBarrier();
    for (var k = li; k < rows * 16u; k += 256u) {
        let c = k % 16u;
        let y = r0 + i32(k / 16u);
        let first = col_first[c];
        var row = vec4<f32>(0.0);
        for (var i = 0; i < n; i++) {
            row += texel(first + i, y) * col_w[c][i];
        }
        row_sums[k] = row;
    }
    workgroupBarrier();
    let gx = x0 + lid.x;
    let gy = y0 + lid.y;
    if (gx >= params.part_width || gy >= params.part_height) { return; }
    let ty = axis_taps(gy + oy, params.in_height, params.out_height, params.scale_y, params.corner_y, params.inv_y);
    var acc = vec4<f32>(0.0);
    for (var j = 0; j < n; j++) {
        acc += row_sums[u32(ty.first - r0 + j) * 16u + lid.x] * ty.w[j];
    }
    let q = vec4<u32>(clamp(floor(acc + 0.5), vec4<f32>(0.0), vec4<f32>(255.0)));
    dst[gy * params.part_width + gx] = pack_u8(q);
}
