// Bilateral filter of an RGBA8 image: each output pixel is the mean of the pixels of a disc
// around it, weighted by distance and by colour difference. CPU twin: `Bilateral::run_cpu`.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: BilateralParams;

fn texel(x: i32, y: i32) -> vec4<f32> {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    return unpack4x8unorm(src[cy * params.width + cx]) * 255.0;
}

@compute @workgroup_size(16, 16)
fn bilateral(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.width || gid.y >= params.height) { return; }
    let x = i32(gid.x);
    let y = i32(gid.y);
    let c = texel(x, y);
    let r = params.radius;
    var sum = vec3<f32>(0.0);
    var wsum = 0.0;
    for (var dy = -r; dy <= r; dy++) {
        for (var dx = -r; dx <= r; dx++) {
            let d2 = dx * dx + dy * dy;
            if (d2 > r * r) { continue; }
            let q = texel(x + dx, y + dy);
            let diff = abs(q.rgb - c.rgb);
            let l1 = diff.r + diff.g + diff.b;
            let w = exp(f32(d2) * params.space_coeff + l1 * l1 * params.color_coeff);
            sum += q.rgb * w;
            wsum += w;
        }
    }
    let rgb = sum / wsum;
    dst[gid.y * params.width + gid.x] = pack4x8unorm(vec4<f32>(rgb, c.a) / 255.0);
}

// Gray8 (4 pixels a word, rows padded to whole words): the same filter on one channel, the
// range distance |Δv|. One invocation per word. CPU twin: `Bilateral::run_cpu`.
fn gray_texel(x: i32, y: i32) -> f32 {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    let words = (params.width + 3u) / 4u;
    return f32((src[cy * words + cx / 4u] >> (8u * (cx & 3u))) & 255u) / 255.0 * 255.0;
}

@compute @workgroup_size(16, 16)
fn bilateral_gray(@builtin(global_invocation_id) gid: vec3<u32>) {
    let words = (params.width + 3u) / 4u;
    if (gid.x >= words || gid.y >= params.height) { return; }
    let y = i32(gid.y);
    let r = params.radius;
    var packed = 0u;
    for (var k = 0u; k < 4u; k++) {
        let xu = gid.x * 4u + k;
        if (xu >= params.width) { break; }
        let x = i32(xu);
        let c = gray_texel(x, y);
        var sum = 0.0;
        var wsum = 0.0;
        for (var dy = -r; dy <= r; dy++) {
            for (var dx = -r; dx <= r; dx++) {
                let d2 = dx * dx + dy * dy;
                if (d2 > r * r) { continue; }
                let q = gray_texel(x + dx, y + dy);
                let l1 = abs(q - c);
                let w = exp(f32(d2) * params.space_coeff + l1 * l1 * params.color_coeff);
                sum += q * w;
                wsum += w;
            }
        }
        packed |= (pack4x8unorm(vec4<f32>(sum / wsum / 255.0)) & 255u) << (8u * k);
    }
    dst[gid.y * words + gid.x] = packed;
}
