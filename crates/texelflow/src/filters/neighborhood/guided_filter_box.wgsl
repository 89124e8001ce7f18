// Guided filter, box passes on the subsampled grid (f32, edges replicated, taps in order):
// rows; columns then the solve for (a, b); columns then the mean of (a, b).

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> gp: GuidedParams;

@compute @workgroup_size(16, 16, 1)
fn guided_box_rows(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= gp.low_width || g.y >= gp.low_height) { return; }
    let r = i32(gp.radius);
    let row = g.y * gp.low_width;
    var sum = vec4<f32>(0.0);
    for (var k = -r; k <= r; k++) {
        sum += src[row + u32(clamp(i32(g.x) + k, 0, i32(gp.low_width) - 1))];
    }
    dst[row + g.x] = sum;
}

fn column_mean(g: vec3<u32>) -> vec4<f32> {
    let r = i32(gp.radius);
    var sum = vec4<f32>(0.0);
    for (var k = -r; k <= r; k++) {
        sum += src[u32(clamp(i32(g.y) + k, 0, i32(gp.low_height) - 1)) * gp.low_width + g.x];
    }
    return sum * gp.inv_window;
}

// (mean I, mean p, mean I², mean I·p) -> (a, b)
@compute @workgroup_size(16, 16, 1)
fn guided_box_solve(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= gp.low_width || g.y >= gp.low_height) { return; }
    let m = column_mean(g);
    let a = (m.w - m.x * m.y) / (m.z - m.x * m.x + gp.eps);
    let b = m.y - a * m.x;
    dst[g.y * gp.low_width + g.x] = vec4<f32>(a, b, 0.0, 0.0);
}

@compute @workgroup_size(16, 16, 1)
fn guided_box_mean(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= gp.low_width || g.y >= gp.low_height) { return; }
    dst[g.y * gp.low_width + g.x] = column_mean(g);
}
