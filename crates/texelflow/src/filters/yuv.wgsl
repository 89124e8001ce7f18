// YUV 4:2:0 (I420, ffmpeg's yuv420p) <-> RGBA8. CPU twin: filters/yuv.rs (`decode_pixel`,
// `encode_byte`), the same f32 expressions in the same order.
//
// The I420 frame travels as a Gray8 image of the frame's width: its bytes (Y plane, then U,
// then V, each row after row, chroma planes ceil(w/2) x ceil(h/2)) fill the image's rows in
// order, the last row padded with zeros. Gray8 rows are whole u32 words on the GPU, so byte
// `o` of the frame sits in row o / w, column o % w.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> yp: YuvParams;

fn frame_byte(o: u32) -> u32 {
    let row = o / yp.width;
    let col = o % yp.width;
    return (src[row * yp.words_per_row + col / 4u] >> (8u * (col % 4u))) & 255u;
}

// 0..255 float to a byte: round half up, clamped.
fn to_byte(v: f32) -> u32 {
    return u32(floor(clamp(v, 0.0, 255.0) + 0.5));
}

// One invocation per output pixel; chroma from the 2x2 block's sample (no interpolation).
@compute @workgroup_size(256)
fn yuv420_to_rgba(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= yp.width * yp.height) { return; }
    let x = i % yp.width;
    let y = i / yp.width;
    let cw = (yp.width + 1u) / 2u;
    let ch = (yp.height + 1u) / 2u;
    let luma = yp.width * yp.height;
    let c = (y / 2u) * cw + x / 2u;
    let yf = (f32(frame_byte(i)) - yp.y_offset) / yp.y_scale;
    let uf = (f32(frame_byte(luma + c)) - 128.0) / yp.c_scale;
    let vf = (f32(frame_byte(luma + cw * ch + c)) - 128.0) / yp.c_scale;
    let kg = 1.0 - yp.kr - yp.kb;
    let r = yf + 2.0 * (1.0 - yp.kr) * vf;
    let g = yf - (2.0 * (1.0 - yp.kb) * yp.kb / kg) * uf - (2.0 * (1.0 - yp.kr) * yp.kr / kg) * vf;
    let b = yf + 2.0 * (1.0 - yp.kb) * uf;
    dst[i] = to_byte(r * 255.0) | (to_byte(g * 255.0) << 8u) | (to_byte(b * 255.0) << 16u) | (255u << 24u);
}

fn rgb_at(x: u32, y: u32) -> vec3<f32> {
    let sx = min(x, yp.src_width - 1u);
    let sy = min(y, yp.src_height - 1u);
    return vec3<f32>(unpack_u8(src[sy * yp.src_width + sx]).rgb) / 255.0;
}

fn luma_of(c: vec3<f32>) -> f32 {
    return yp.kr * c.r + (1.0 - yp.kr - yp.kb) * c.g + yp.kb * c.b;
}

// Byte `o` of the I420 frame: Y of one pixel, or U or V of a 2x2 block's mean colour.
fn encode_byte(o: u32) -> u32 {
    let luma = yp.width * yp.height;
    let cw = (yp.width + 1u) / 2u;
    let ch = (yp.height + 1u) / 2u;
    if (o < luma) {
        let yl = luma_of(rgb_at(o % yp.width, o / yp.width));
        return to_byte(yp.y_offset + yl * yp.y_scale);
    }
    if (o >= luma + 2u * cw * ch) { return 0u; }
    let k = (o - luma) % (cw * ch);
    let bx = (k % cw) * 2u;
    let by = (k / cw) * 2u;
    var sum = vec3<f32>(0.0);
    var n = 0.0;
    for (var dy = 0u; dy < 2u; dy++) {
        for (var dx = 0u; dx < 2u; dx++) {
            if (bx + dx < yp.width && by + dy < yp.height) {
                sum += rgb_at(bx + dx, by + dy);
                n += 1.0;
            }
        }
    }
    let c = sum / n;
    let yl = luma_of(c);
    if (o < luma + cw * ch) {
        return to_byte(128.0 + (c.b - yl) / (2.0 * (1.0 - yp.kb)) * yp.c_scale);
    }
    return to_byte(128.0 + (c.r - yl) / (2.0 * (1.0 - yp.kr)) * yp.c_scale);
}

// One invocation per word of the Gray8 container (4 bytes of the frame, or zero padding).
@compute @workgroup_size(256)
fn rgba_to_yuv420(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = linear_id(wid, nwg, lid, 256u);
    if (w >= yp.words_per_row * yp.rows) { return; }
    let row = w / yp.words_per_row;
    let col0 = (w % yp.words_per_row) * 4u;
    var word = 0u;
    for (var j = 0u; j < 4u; j++) {
        let col = col0 + j;
        if (col < yp.width) {
            word |= encode_byte(row * yp.width + col) << (8u * j);
        }
    }
    dst[w] = word;
}
