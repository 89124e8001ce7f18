// Shared helpers, prepended to every kernel (see runtime/kernel.rs).

// GPUImage's luminance weights (its `W` constant).
const LUMA_W = vec3<f32>(0.2125, 0.7154, 0.0721);

// floor() of a cell index, nudged up by 1/256 of a cell: on regular grids many pixel centres fall
// exactly on a cell boundary, where the GPU's division (not correctly rounded on every device) and
// the CPU's landed in different cells (an H200 gave 66 levels of difference in pixellate). The
// nudge moves those ties well past any rounding. CPU twin: `filters::tie_floor`.
const TIE_NUDGE: f32 = 0.00390625;
fn tie_floor(t: f32) -> f32 {
    return floor(t + TIE_NUDGE);
}
fn tie_floor2(t: vec2<f32>) -> vec2<f32> {
    return floor(t + TIE_NUDGE);
}

// Linear invocation index for dispatches folded into 2-D by `groups_1d`.
fn linear_id(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, wg_size: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * wg_size + lid;
}

// The four 8-bit samples of a packed RGBA8 pixel as integers.
// The four consecutive pixels (row-major, wrapping to the next row) from linear index `first` of
// an image `width` wide, for kernels that make four outputs and store them as one vec4<u32>.
fn quad_pixels(first: u32, width: u32) -> array<vec2<u32>, 4> {
    var q: array<vec2<u32>, 4>;
    var y = first / width;
    var x = first - y * width;
    for (var k = 0u; k < 4u; k++) {
        q[k] = vec2<u32>(x, y);
        x += 1u;
        if (x == width) { x = 0u; y += 1u; }
    }
    return q;
}

fn unpack_u8(p: u32) -> vec4<u32> {
    return vec4<u32>(p & 255u, (p >> 8u) & 255u, (p >> 16u) & 255u, p >> 24u);
}

fn pack_u8(c: vec4<u32>) -> u32 {
    return (c.x & 255u) | ((c.y & 255u) << 8u) | ((c.z & 255u) << 16u) | (c.w << 24u);
}

// BT.601 luma, exact integer twin of `image::luma601`.
fn luma601(c: vec4<u32>) -> u32 {
    return (299u * c.x + 587u * c.y + 114u * c.z + 500u) / 1000u;
}

// A pixel's column and row and the image size, for per-pixel filters that depend on where
// the pixel is (filters::shape::pixel::PixelAt).
struct PixelAt {
    xy: vec2<u32>,
    size: vec2<u32>,
}

// The pixel centre in [0, 1]^2, GPUImage's `textureCoordinate`.
fn at_uv(at: PixelAt) -> vec2<f32> {
    return (vec2<f32>(at.xy) + 0.5) / vec2<f32>(at.size);
}

// pow() is undefined for x <= 0 in WGSL; pinned to the CPU twins' `spow`: 0^0 = 1, 0^g = 0.
fn spow(x: f32, g: f32) -> f32 {
    if (x <= 0.0) {
        return select(0.0, 1.0, g == 0.0);
    }
    return pow(x, g);
}

// GPUImage's overlay of a grey `base` with a colour `blend`, per channel (Monochrome,
// WhiteBalance's warm filter).
fn overlay3(base: vec3<f32>, blend: vec3<f32>) -> vec3<f32> {
    return select(vec3<f32>(1.0) - 2.0 * (vec3<f32>(1.0) - base) * (vec3<f32>(1.0) - blend), 2.0 * base * blend, base < vec3<f32>(0.5));
}

// GLSL smoothstep, a step where the edges meet (WGSL leaves e0 == e1 undefined).
fn smoothstep_safe(e0: f32, e1: f32, x: f32) -> f32 {
    let t = clamp((x - e0) / max(e1 - e0, 1e-6), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

// Round to the 16-bit grid, as storing and reloading an RGBA16 pixel would.
fn quantize16(c: vec4<f32>) -> vec4<f32> {
    let q = unorm16_pack(c);
    return unorm16_unpack(q.x, q.y);
}
