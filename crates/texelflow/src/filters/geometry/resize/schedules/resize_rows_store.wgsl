// Bindings and 4-pixel store of `general_rows` (resize_general_rows.wgsl) where the part's
// rows start on 16-byte boundaries (a width that is a multiple of 4): one 16-byte store.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: ResizeGeneralParams;

fn store4(row: u32, x: u32, o: vec4<u32>) {
    dst[(row + x) / 4u] = o;
}
