// Box blur, subgroup variant of `main` in box_blur.wgsl (appended to it; used where the
// device has subgroup operations). Same strip walk and column sums; the horizontal prefix
// sum of each row is an inclusive subgroup scan plus the totals of the preceding subgroups,
// which takes two barriers per round of CH rows instead of five.

// Number of subgroups that registered so far (their index in strip order).
var<workgroup> sg_count: atomic<u32>;

@compute @workgroup_size(256)
fn main_sg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
    // Strip column of this invocation: subgroup g (numbered by registration, so no
    // assumption on how invocations map to subgroups) covers columns g*sg_size.. in lane order.
    if (lid == 0u) {
        atomicStore(&sg_count, 0u);
    }
    workgroupBarrier();
    var first = 0u;
    if (lane == 0u) {
        first = atomicAdd(&sg_count, 1u);
    }
    let g = subgroupBroadcastFirst(first);
    let t = g * sg_size + lane;

    let r = bp.radius;
    let wmax = i32(bp.width) - 1;
    let hmax = i32(bp.height) - 1;
    let out_x0 = wid.x * bp.tile_w;
    let col = u32(clamp(i32(out_x0) - i32(r) + i32(t), 0, wmax));
    let y_start = wid.y * bp.strip_h;
    let y_end = min(y_start + bp.strip_h, bp.height);

    var v = vec2<u32>(0u);
    for (var j = 0u; j <= 2u * r; j++) {
        let yy = u32(clamp(i32(y_start) - 1 - i32(r) + i32(j), 0, hmax));
        v += load_split(yy, col);
    }

    // The rows entering and leaving the windows are loaded one round ahead, so their
    // latency overlaps the previous round's scan and barriers.
    var enter_px: array<vec2<u32>, CH>;
    var leave_px: array<vec2<u32>, CH>;
    for (var i = 0u; i < CH; i++) {
        let y = i32(y_start + i);
        enter_px[i] = load_split(u32(min(y + i32(r), hmax)), col);
        leave_px[i] = load_split(u32(max(y - i32(r) - 1, 0)), col);
    }
    var incl: array<vec4<u32>, CH>;
    for (var y0 = y_start; y0 < y_end; y0 += CH) {
        // 1. slide the column windows; scan them across the subgroup
        for (var i = 0u; i < CH; i++) {
            v = v + enter_px[i] - leave_px[i];
            incl[i] = subgroupInclusiveAdd(unpack_pair(v));
            if (lane == sg_size - 1u) {
                tb[i * RUNS + g] = incl[i];
            }
            let y = i32(y0 + CH + i);
            enter_px[i] = load_split(u32(min(y + i32(r), hmax)), col);
            leave_px[i] = load_split(u32(max(y - i32(r) - 1, 0)), col);
        }
        workgroupBarrier();
        // 2. add the totals of the subgroups to the left: prefix over the strip
        for (var i = 0u; i < CH; i++) {
            var p = incl[i];
            for (var k = 0u; k < g; k++) {
                p += tb[i * RUNS + k];
            }
            incl[i] = p;
            pb[i * NCOL + t] = p;
        }
        workgroupBarrier();
        // 3. window sums: strip column t ends the window of output column t - 2r
        for (var i = 0u; i < CH; i++) {
            let y = y0 + i;
            if (y < y_end && t >= 2u * r) {
                let u = t - 2u * r;
                let x = out_x0 + u;
                if (x < bp.width) {
                    var s = incl[i];
                    if (u > 0u) {
                        s -= pb[i * NCOL + t - 2u * r - 1u];
                    }
                    dst[y * bp.width + x] = div_round(s);
                }
            }
        }
    }
}
