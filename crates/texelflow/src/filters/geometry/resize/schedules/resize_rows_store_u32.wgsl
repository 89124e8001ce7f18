// Bindings and store of `general_rows` (resize_general_rows.wgsl) for any width: 4-byte
// stores, the columns past the part's last one skipped.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: ResizeGeneralParams;

fn store_cols(row: u32, x: u32, o: vec4<u32>) {
    for (var c = 0u; c < COLS; c++) {
        if (x + c < params.part_width) { dst[row + x + c] = o[c]; }
    }
}
