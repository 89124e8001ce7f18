// Mosaic (GPUImage's GPUImageMosaicFilter): each display cell shows one tile of a tile set,
// chosen by the darkness of the image at the cell, tinted by its colour. CPU twin:
// `Mosaic::run_cpu` in mosaic.rs (the same f32 operations; the tile's index in integers).

@group(0) @binding(0) var<storage, read> image: array<u32>;
@group(0) @binding(1) var<storage, read> tiles: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> params: MosaicParams;

fn texel(x: i32, y: i32) -> vec4<f32> {
    let cx = u32(clamp(x, 0, i32(params.tiles_width) - 1));
    let cy = u32(clamp(y, 0, i32(params.tiles_height) - 1));
    return unorm_unpack(tiles[cy * params.tiles_width + cx]);
}

// Bilinear in the tile set at pixel position s (pixel centres at integers), replicate edges.
fn bilinear(s: vec2<f32>) -> vec4<f32> {
    let f = floor(s);
    let t = s - f;
    let x = i32(f.x);
    let y = i32(f.y);
    let top = texel(x, y) * (1.0 - t.x) + texel(x + 1, y) * t.x;
    let bottom = texel(x, y + 1) * (1.0 - t.x) + texel(x + 1, y + 1) * t.x;
    return top * (1.0 - t.y) + bottom * t.y;
}

@compute @workgroup_size(16, 16)
fn mosaic(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.width || g.y >= params.height) { return; }
    let t = (vec2<f32>(g.xy) + 0.5) * params.cell_scale;
    let cell = floor(t);
    // the image's pixel at the cell's centre (nearest: a bilinear sample rounded to 8 bits would
    // meet exact ties, which the two sides may round apart, changing the tile)
    let centre = vec2<u32>(min(vec2<f32>(floor((cell + 0.5) * params.cell_px)), vec2<f32>(f32(params.width - 1u), f32(params.height - 1u))));
    let c = unpack_u8(image[centre.y * params.width + centre.x]);
    // darker cells take later tiles: index floor((1 - luma) * num_tiles) in integers
    let dark = 255000u - (299u * c.x + 587u * c.y + 114u * c.z);
    let index = min(dark * params.num_tiles / 255000u, params.num_tiles - 1u);
    let tile = vec2<f32>(f32(index % params.per_row), f32(index / params.per_row));
    var color = bilinear((tile + (t - cell)) * params.tile_px - 0.5);
    if (params.color_on == 1u) {
        color = color * (vec4<f32>(c) / 255.0);
    }
    dst[g.y * params.width + g.x] = unorm_pack(color);
}
