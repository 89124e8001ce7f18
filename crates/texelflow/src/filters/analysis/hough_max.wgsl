// The strongest accumulator bin's votes into the candidate header (word 2): a workgroup
// maximum, then one global atomicMax per workgroup.
@group(0) @binding(0) var<storage, read> acc: array<u32>;
@group(0) @binding(1) var<storage, read_write> cand: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> p: HoughParams;

var<workgroup> wg_max: atomic<u32>;

@compute @workgroup_size(256)
fn hough_max(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < p.n_theta * p.n_rho) {
        atomicMax(&wg_max, acc[i]);
    }
    workgroupBarrier();
    if (lid == 0u) {
        atomicMax(&cand[2], atomicLoad(&wg_max));
    }
}
