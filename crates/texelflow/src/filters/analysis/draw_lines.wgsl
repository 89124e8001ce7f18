// Lines of a `DataKind::Lines` list over a copy of the image (GPUImage's GPUImageLineGenerator,
// drawn over the photo, no anti-aliasing). Pass `copy_image` (draw_points_copy.wgsl), then
// `draw_lines`: one invocation per (list slot, run of STEPS columns or rows). Integer
// arithmetic from the list's Q1.14 cos/sin and ρ in Q14, so the pixels are the twin's.
// CPU twin: `draw_lines_cpu` in draw_lines.rs.

@group(0) @binding(0) var<storage, read> list: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> dl: DrawLinesParams;

// mirror LINES_HEADER_WORDS and LINE_WORDS in value.rs, STEPS in draw_lines.rs
const HEADER: u32 = 4u;
const LINE_WORDS: u32 = 4u;
const STEPS: u32 = 64u;

fn put(x: i32, y: i32) {
    if (x >= 0 && y >= 0 && x < i32(dl.width) && y < i32(dl.height)) {
        dst[u32(y) * dl.width + u32(x)] = dl.color;
    }
}

// floor(a / b) for b > 0 (WGSL's `/` truncates towards zero)
fn floor_div(a: i32, b: i32) -> i32 {
    let q = a / b;
    return select(q, q - 1, a % b != 0 && a < 0);
}

@compute @workgroup_size(64)
fn draw_lines(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 64u);
    let slot = i / dl.chunks;
    let n = min(min(list[0], list[1]), dl.slots);
    if (slot >= n) { return; }
    let start = (i % dl.chunks) * STEPS;
    let o = HEADER + LINE_WORDS * slot;
    let cs = list[o + 3u];
    let cq = bitcast<i32>(cs << 16u) >> 16u;
    let sq = bitcast<i32>(cs) >> 16u;
    // ρ in Q14 (exact: a power-of-two scale)
    let rq = i32(round(bitcast<f32>(list[o]) * 16384.0));
    let a = i32(dl.arm);
    if (abs(sq) >= abs(cq)) {
        // nearer horizontal: one pixel per column, y = round((ρ - x cos) / sin); sin > 0 here
        for (var s = start; s < min(start + STEPS, dl.width); s++) {
            let x = i32(s);
            let y = floor_div(2 * (rq - x * cq) + sq, 2 * sq);
            for (var k = -a; k <= a; k++) {
                put(x, y + k);
            }
        }
    } else {
        // nearer vertical: one pixel per row, x = round((ρ - y sin) / cos)
        let c = abs(cq);
        let sign = select(1, -1, cq < 0);
        for (var s = start; s < min(start + STEPS, dl.height); s++) {
            let y = i32(s);
            let x = floor_div(2 * sign * (rq - y * sq) + c, 2 * c);
            for (var k = -a; k <= a; k++) {
                put(x + k, y);
            }
        }
    }
}
