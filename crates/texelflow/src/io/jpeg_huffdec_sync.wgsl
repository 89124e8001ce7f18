// The synchronisation of the JPEG entropy decode (jpeg_huffdec.wgsl): `hd_sync` round 0 decodes
// each subsequence from a guess (its first bit, a block's DC, the MCU's first block); round
// r > 0 decodes each from the state its predecessor ended in and carries on while the states
// it reaches differ from those stored (writing them, and a flag for the round), up to `reach`
// subsequences; a round that changes nothing leaves later rounds nothing to do. `finish` (one
// invocation) walks every subsequence in order where the last round still changed a state.
// (llvmpipe, the CPU Vulkan the tests run on, stops any loop nest after 65535 iterations in
// all, so there the walk is exact only for small streams; `reach` is kept small for the same
// reason. GPUs have no such limit.)

@group(0) @binding(4) var<uniform> hu: HdU;

fn emit_dc(unit: u32, diff: i32) {}
fn emit_ac(unit: u32, k: u32, v: i32) {}
// (damage is judged by the writing kernel, from exact states)
fn emit_bad(unit: u32) {}
fn emit_end(unit: u32) {}

@compute @workgroup_size(64)
fn hd_sync(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let j = linear_id(wid, nwg, lid, 64u);
    let subs = hu.a.x;
    if (j >= subs) {
        return;
    }
    let round = hu.c.x;
    if (round == 0u) {
        atomicStore(&st[j], run_sub(j, 0u));
        return;
    }
    if (round >= 2u && atomicLoad(&st[subs + round - 1u]) == 0u) {
        return;
    }
    if (is_head(j)) {
        return;
    }
    var entry = atomicLoad(&st[j - 1u]);
    let last = min(subs, j + hu.d.x);
    for (var k = j; k < last; k += 1u) {
        if (k > j && is_head(k)) {
            break;
        }
        let e = run_sub(k, entry);
        if (e == atomicLoad(&st[k])) {
            break;
        }
        atomicStore(&st[k], e);
        atomicStore(&st[subs + round], 1u);
        entry = e;
    }
}

@compute @workgroup_size(1)
fn finish() {
    let subs = hu.a.x;
    if (atomicLoad(&st[subs + hu.d.y]) == 0u) {
        return;
    }
    var e = atomicLoad(&st[0]);
    for (var j = 1u; j < subs; j += 1u) {
        if (is_head(j)) {
            e = atomicLoad(&st[j]);
        } else {
            e = run_sub(j, e);
            atomicStore(&st[j], e);
        }
    }
}
