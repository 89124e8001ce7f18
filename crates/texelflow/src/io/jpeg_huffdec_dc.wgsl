// DC prediction of the JPEG entropy decode (issue 30): the DC differences are summed per
// component in scan order, from zero at each restart interval, dummy blocks included (they
// chain the prediction, as in libjpeg, and are not stored). In chunks of MCUs: `dc_sums` each
// chunk's sums since its last restart, `dc_carry` (one invocation) each chunk's starting
// values, `dc_apply` the DC of each stored block (the low half of its first word).

@group(0) @binding(0) var<storage, read> dcd: array<i32>;
// per chunk: the sums per component, whether a restart lies within (w); then its start values
@group(0) @binding(1) var<storage, read_write> chunks: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> coefw: array<u32>;
@group(0) @binding(3) var<uniform> hu: HdU;

// Chunk `t`'s DC differences summed per component from `start`, from zero at each restart
// within it (w: 1 where one lies within); with `write`, each stored block's DC stored as it goes.
fn dc_walk(t: u32, start: vec4<i32>, write: bool) -> vec4<i32> {
    let bpm = hu.a.z;
    let m0 = t * hu.c.z;
    let m1 = min(m0 + hu.c.z, hu.b.y);
    var s = start;
    for (var m = m0; m < m1; m += 1u) {
        if (m % hu.b.w == 0u) {
            s = vec4<i32>(0i, 0i, 0i, 1i);
        }
        for (var r = 0u; r < bpm; r += 1u) {
            let c = min(hu.blk[r].x, 2u);
            let unit = m * bpm + r;
            s[c] += dcd[unit];
            if (write) {
                let b = block_of(unit);
                if (b != NONE && b < hu.d.w) {
                    let w = hu.d.z + b * 32u;
                    coefw[w] = (coefw[w] & 0xffff0000u) | (u32(s[c]) & 0xffffu);
                }
            }
        }
    }
    return s;
}

@compute @workgroup_size(64)
fn dc_sums(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid, 64u);
    if (t >= hu.c.w) {
        return;
    }
    chunks[t] = dc_walk(t, vec4<i32>(0i), false);
}

@compute @workgroup_size(1)
fn dc_carry() {
    var carry = vec4<i32>(0i);
    for (var t = 0u; t < hu.c.w; t += 1u) {
        let s = chunks[t];
        chunks[t] = carry;
        if (s.w != 0i) {
            carry = vec4<i32>(s.xyz, 0i);
        } else {
            carry += vec4<i32>(s.xyz, 0i);
        }
    }
    // a `DataKind::Bytes` header where the coefficients are a stream's bytes
    if (hu.d.z == 4u) {
        coefw[0] = hu.d.w * 128u;
    }
    // (binds `dcd` as the other entry points do)
    if (hu.a.x == NONE) {
        coefw[0] = u32(dcd[0]);
    }
}

@compute @workgroup_size(64)
fn dc_apply(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid, 64u);
    if (t >= hu.c.w) {
        return;
    }
    dc_walk(t, chunks[t], true);
}
