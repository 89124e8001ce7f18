// Poisson blend, one iteration (see poisson_blend.wgsl): GPUImage's per-pass formula
//   jacobi = mean4(current neighbours) + (top - mean4(top neighbours))
//   next   = mix(current, jacobi, top.a * mix)
// with the guidance term and the weight precomputed by `poisson_init`.
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> guide: array<vec4<f32>>;
// [0]: iterations run when stopped early (0: not stopped); [1..]: each check's largest
// change, as f32 bits (non-negative floats order like their bits as u32).
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;

var<workgroup> wg_max: atomic<u32>;

@compute @workgroup_size(256)
fn poisson_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    // Early stop without readback: once a check found the change below the tolerance, every
    // later step sees it (dispatches of one pass are ordered) and writes nothing; the pack
    // kernel then reads the buffer that iteration wrote.
    var live = i < params.count && atomicLoad(&status[0]) == 0u;
    if (live && params.prev_slot != NONE) {
        if (bitcast<f32>(atomicLoad(&status[params.prev_slot])) < params.tol) {
            atomicStore(&status[0], params.iter - 1u);
            live = false;
        }
    }
    var change = 0.0;
    if (live) {
        let y = i / params.width;
        let x = i - y * params.width;
        let n = neighbours(x, y);
        let c = src[i];
        let g = guide[i];
        let mean = (((src[n.x].rgb + src[n.y].rgb) + src[n.z].rgb) + src[n.w].rgb) * 0.25;
        let jacobi = mean + g.rgb;
        let next = c.rgb * (1.0 - g.w) + jacobi * g.w;
        dst[i] = vec4<f32>(next, c.w);
        let d = abs(next - c.rgb);
        change = max(max(d.x, d.y), d.z);
    }
    // `check_slot` is uniform, so the barrier is in uniform control flow
    if (params.check_slot != NONE) {
        atomicMax(&wg_max, bitcast<u32>(change));
        workgroupBarrier();
        if (lid == 0u) {
            atomicMax(&status[params.check_slot], atomicLoad(&wg_max));
        }
    }
}
