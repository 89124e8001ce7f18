// Voronoi consumer (GPUImage's GPUImageVoronoiConsumerFilter): each pixel takes the colour of
// the image at its cell's seed, the seed decoded from a jfa_voronoi map. Integer arithmetic
// only; CPU twin: `VoronoiConsumer::run_cpu` in voronoi_consumer.rs.

@group(0) @binding(0) var<storage, read> image: array<u32>;
@group(0) @binding(1) var<storage, read> seeds_map: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> params: VoronoiParams;

// Pixel of a size-`dst_n` grid whose centre is nearest the centre of pixel `i` of a size-`src_n` grid.
fn rescale(i: u32, src_n: u32, dst_n: u32) -> u32 {
    return min((2u * i + 1u) * dst_n / (2u * src_n), dst_n - 1u);
}

@compute @workgroup_size(16, 16)
fn voronoi_consumer(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.width || g.y >= params.height) { return; }
    let i = g.y * params.width + g.x;
    let m = seeds_map[rescale(g.y, params.height, params.map_height) * params.map_width + rescale(g.x, params.width, params.map_width)];
    // transparent: no seed, the image's own pixel
    if ((m >> 24u) == 0u) {
        dst[i] = image[i];
        return;
    }
    let b = (m >> 16u) & 255u;
    let sx = (m & 255u) + 256u * (b & 7u);
    let sy = ((m >> 8u) & 255u) + 256u * (b >> 3u);
    let x = rescale(min(sx, params.map_width - 1u), params.map_width, params.width);
    let y = rescale(min(sy, params.map_height - 1u), params.map_height, params.height);
    dst[i] = image[y * params.width + x];
}
