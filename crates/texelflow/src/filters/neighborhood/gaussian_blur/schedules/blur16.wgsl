// The 16-bit schedules of gaussian_blur and box_blur (RGBA16 images): two plain separable
// passes, one invocation per pixel, through a temporary of four 32-bit words per pixel. The
// 8-bit schedules are tuned for bandwidth; these are written for clarity.
// Samples stay in 16-bit units (0..65535) throughout.
// CPU twins: `gaussian_cpu16` and `box_cpu16` in blur16.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> bp: Blur16Params;

// The four samples of RGBA16 pixel `i` (words `r | g << 16`, `b | a << 16`).
fn samples16(i: u32) -> vec4<u32> {
    let rg = src[2u * i];
    let ba = src[2u * i + 1u];
    return vec4<u32>(rg & 0xffffu, rg >> 16u, ba & 0xffffu, ba >> 16u);
}
fn store16(i: u32, v: vec4<u32>) {
    dst[2u * i] = v.x | (v.y << 16u);
    dst[2u * i + 1u] = v.z | (v.w << 16u);
}
// Pixel `i` of the temporary (four words).
fn tmp_words(i: u32) -> vec4<u32> {
    return vec4<u32>(src[4u * i], src[4u * i + 1u], src[4u * i + 2u], src[4u * i + 3u]);
}
fn store_tmp(i: u32, v: vec4<u32>) {
    dst[4u * i] = v.x;
    dst[4u * i + 1u] = v.y;
    dst[4u * i + 2u] = v.z;
    dst[4u * i + 3u] = v.w;
}
// Coordinate `c + k - radius`, clamped to [0, n): replicated borders.
fn tap_at(c: u32, k: u32, n: u32) -> u32 {
    return u32(clamp(i32(c) + i32(k) - i32(bp.radius), 0, i32(n) - 1));
}

// Gaussian rows: f32 sums of the weighted samples, taps left to right.
@compute @workgroup_size(64, 4, 1)
fn gauss16_h(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= bp.width || g.y >= bp.height) { return; }
    let row = g.y * bp.width;
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k <= 2u * bp.radius; k++) {
        acc += bp.w[k / 4u][k % 4u] * vec4<f32>(samples16(row + tap_at(g.x, k, bp.width)));
    }
    store_tmp(row + g.x, bitcast<vec4<u32>>(acc));
}

// Gaussian columns of the row sums, taps top to bottom; rounded half up like pack2x16unorm.
@compute @workgroup_size(64, 4, 1)
fn gauss16_v(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= bp.width || g.y >= bp.height) { return; }
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k <= 2u * bp.radius; k++) {
        acc += bp.w[k / 4u][k % 4u] * bitcast<vec4<f32>>(tmp_words(tap_at(g.y, k, bp.height) * bp.width + g.x));
    }
    store16(g.y * bp.width + g.x, vec4<u32>(clamp(acc, vec4<f32>(0.0), vec4<f32>(65535.0)) + 0.5));
}

// Box rows: exact integer window sums (at most 129 * 65535).
@compute @workgroup_size(64, 4, 1)
fn box16_h(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= bp.width || g.y >= bp.height) { return; }
    let row = g.y * bp.width;
    var acc = vec4<u32>(0u);
    for (var k = 0u; k <= 2u * bp.radius; k++) {
        acc += samples16(row + tap_at(g.x, k, bp.width));
    }
    store_tmp(row + g.x, acc);
}

// Box columns of the row sums (at most 129^2 * 65535 < 2^31), and the mean rounded half up:
// (2 sum + n) / 2n stays below 2^32.
@compute @workgroup_size(64, 4, 1)
fn box16_v(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= bp.width || g.y >= bp.height) { return; }
    var acc = vec4<u32>(0u);
    for (var k = 0u; k <= 2u * bp.radius; k++) {
        acc += tmp_words(tap_at(g.y, k, bp.height) * bp.width + g.x);
    }
    let n = (2u * bp.radius + 1u) * (2u * bp.radius + 1u);
    store16(g.y * bp.width + g.x, min((2u * acc + vec4<u32>(n)) / (2u * n), vec4<u32>(65535u)));
}
