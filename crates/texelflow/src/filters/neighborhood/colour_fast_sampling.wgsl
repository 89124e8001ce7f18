// ColourFAST sampling (GPUImage's GPUImageColourFASTSamplingOperation): 8 samples on a ring
// of radius ~3.2 against the centre; RGB = the mean colour difference mapped to [0, 1], alpha
// = its direction. Integers up to the angle. CPU twin: `colour_fast_cpu` in colour_fast_sampling.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> cf: ColourFastParams;

fn rgb_at(x: i32, y: i32) -> vec3<i32> {
    let cx = u32(clamp(x, 0, i32(cf.width) - 1));
    let cy = u32(clamp(y, 0, i32(cf.height) - 1));
    return vec3<i32>(unpack_u8(src[cy * cf.width + cx]).rgb);
}

@compute @workgroup_size(16, 16)
fn colour_fast(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= cf.width || gid.y >= cf.height) { return; }
    let x = i32(gid.x);
    let y = i32(gid.y);
    let c = rgb_at(x, y);
    // GPUImage's points A..H; +y is down
    let a = rgb_at(x + 3, y + 1);
    let b = rgb_at(x + 1, y + 3);
    let cc = rgb_at(x - 1, y + 3);
    let d = rgb_at(x - 3, y + 1);
    let e = rgb_at(x - 3, y - 1);
    let f = rgb_at(x - 1, y - 3);
    let g = rgb_at(x + 1, y - 3);
    let h = rgb_at(x + 3, y - 1);
    // 8 * 255 times GPUImage's colorComparison
    let diff = a + b + cc + d + e + f + g + h - 8 * c;
    // sqrt(10) * 255 times GPUImage's dirX and dirY (its 0.94868 and 0.316227 are 3 and 1 over sqrt(10))
    let dir_x = 3 * (a - d - e + h) + (b - cc - f + g);
    let dir_y = (a + d - e - h) + 3 * (b + cc - f - g);
    let ad = abs(diff);
    let sx = ad.x * dir_x.x + ad.y * dir_x.y + ad.z * dir_x.z;
    let sy = ad.x * dir_y.x + ad.y * dir_y.y + ad.z * dir_y.z;
    // atan(avgY, avgX): the positive factors cancel; no difference at all gives angle 0
    var angle = 0.0;
    if (sx != 0 || sy != 0) {
        angle = atan2(f32(sy), f32(sx));
    }
    let rgb = (vec3<f32>(diff) / 2040.0 + 1.0) * 0.5;
    dst[gid.y * cf.width + gid.x] = pack4x8unorm(vec4<f32>(rgb, (angle + 3.1416) / 6.2832));
}
