// CLAHE, second pass: each tile's LUT from its histogram, written over it. Needs clahe.wgsl
// (ClaheParams). CPU twin: `clahe_cpu` in clahe.rs.
@group(0) @binding(0) var<storage, read_write> table: array<u32>;  // 256 per tile: histograms in, LUTs out
@group(0) @binding(1) var<uniform> params: ClaheParams;

var<workgroup> clipped: atomic<u32>;
var<workgroup> scan: array<u32, 256>;

// One workgroup per tile: clip, redistribute the excess as OpenCV does (an equal share to every
// bin, the remainder one each to bins 0, step, 2 step, ...), then the cumulative sum scaled to
// 255 and rounded half to even (cv::saturate_cast). Overwrites the histogram with the LUT.
@compute @workgroup_size(256)
fn clahe_lut(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let at = wid.x * 256u + lid;
    var h = table[at];
    if (params.clip > 0u) {
        if (h > params.clip) {
            atomicAdd(&clipped, h - params.clip);
            h = params.clip;
        }
    }
    workgroupBarrier();
    if (params.clip > 0u) {
        let total = atomicLoad(&clipped);
        let residual = total % 256u;
        h += total / 256u;
        if (residual != 0u) {
            let step = max(256u / residual, 1u);
            if (lid % step == 0u && lid / step < residual) { h += 1u; }
        }
    }
    scan[lid] = h;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off <<= 1u) {
        let t = select(0u, scan[lid - off], lid >= off);
        workgroupBarrier();
        scan[lid] += t;
        workgroupBarrier();
    }
    table[at] = u32(clamp(round(f32(scan[lid]) * params.lut_scale), 0.0, 255.0));
}

