// Bindings and store of `general_rows` (resize_general_rows.wgsl) where the part's width is a
// multiple of COLS: the COLS pixels in one store (16 bytes for 4, 8 for 2).
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: ResizeGeneralParams;

fn store_cols(row: u32, x: u32, o: vec4<u32>) {
    dst[(row + x) / 4u] = o;
}
