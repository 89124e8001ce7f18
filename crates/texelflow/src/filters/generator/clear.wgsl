// Fills an RGBA8 image with one packed colour: the background the data-drawing generators
// (crosshair, line) draw on. CPU twin: an image of that colour (`blank` in generator/mod.rs).

@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<uniform> cp: ClearParams;

@compute @workgroup_size(256)
fn clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < cp.count) {
        dst[i] = cp.value;
    }
}
