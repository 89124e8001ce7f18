// Bindings and store of `general_rows` with COLS = 2 where the part's width is even: the two
// pixels in one 8-byte store.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<u32>>;
@group(0) @binding(2) var<uniform> params: ResizeGeneralParams;

fn store_cols(row: u32, x: u32, o: vec4<u32>) {
    dst[(row + x) / 2u] = o.xy;
}
