// The dominant colour (`DataKind::Color`): pass `dominant_cells` counts the pixels of each
// cell of a coarse RGB grid (the top `bits` bits of R, G, B; `grid.extra` = bits), pass
// `dominant_mean` finds the most populated cell (the lowest index among equals) and sums the
// R, G, B of its pixels with exact 64-bit carries. CPU twin: `dominant_color_cpu` in
// dominant_color.rs. Needs grid.wgsl; `visit_pixels` is generated (LoopShape).

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> cells: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> colour: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `DOMINANT_WG` in dominant_color.rs.
const DOMINANT_WG: u32 = 256u;
// The most cells (bits = 4); fewer are used for smaller `bits`.
const MAX_CELLS: u32 = 4096u;

var<workgroup> h: array<atomic<u32>, 4096>;
var<workgroup> best_count: array<u32, 256>;
var<workgroup> best_cell: array<u32, 256>;
var<workgroup> wsum: array<atomic<u32>, 4>;
var<private> mode: u32;
var<private> acc: vec4<u32>;
var<private> counting: bool;

fn cell_of(c: vec4<u32>) -> u32 {
    let b = grid.extra;
    let s = 8u - b;
    return (c.x >> s) | ((c.y >> s) << b) | ((c.z >> s) << (2u * b));
}

fn add_pixel(p: u32) {
    let c = unpack_u8(p);
    let k = cell_of(c);
    if (counting) {
        atomicAdd(&h[k], 1u);
    } else if (k == mode) {
        acc += vec4<u32>(c.xyz, 1u);
    }
}

@compute @workgroup_size(256)
fn dominant_cells(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    counting = true;
    visit_pixels(wid.x * DOMINANT_WG + lid);
    if (wid.x == 0u && lid == 0u) {
        atomicStore(&colour[9], grid.extra);
        atomicStore(&colour[10], grid.count);
    }
    workgroupBarrier();
    let n = 1u << (3u * grid.extra);
    for (var i = lid; i < n; i += DOMINANT_WG) {
        let v = atomicLoad(&h[i]);
        if (v != 0u) {
            atomicAdd(&cells[i], v);
        }
    }
}

// `colour[lo_index..lo_index + 2)` += v, a 64-bit sum as (lo, hi) words.
fn add_wide(lo_index: u32, v: u32) {
    let old = atomicAdd(&colour[lo_index], v);
    if (old > 0xFFFFFFFFu - v) {
        atomicAdd(&colour[lo_index + 1u], 1u);
    }
}

@compute @workgroup_size(256)
fn dominant_mean(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // every workgroup finds the mode itself (4096 cached loads): no pass in between
    let n = 1u << (3u * grid.extra);
    var bc = 0u;
    var bi = 0u;
    for (var i = lid; i < n; i += DOMINANT_WG) {
        let v = atomicLoad(&cells[i]);
        if (v > bc) {
            bc = v;
            bi = i;
        }
    }
    best_count[lid] = bc;
    best_cell[lid] = bi;
    workgroupBarrier();
    for (var step = DOMINANT_WG / 2u; step > 0u; step >>= 1u) {
        if (lid < step) {
            let oc = best_count[lid + step];
            let oi = best_cell[lid + step];
            if (oc > best_count[lid] || (oc == best_count[lid] && oi < best_cell[lid])) {
                best_count[lid] = oc;
                best_cell[lid] = oi;
            }
        }
        workgroupBarrier();
    }
    mode = best_cell[0];
    counting = false;
    acc = vec4<u32>(0u);
    visit_pixels(wid.x * DOMINANT_WG + lid);
    if (acc.w != 0u) {
        atomicAdd(&wsum[0], acc.x);
        atomicAdd(&wsum[1], acc.y);
        atomicAdd(&wsum[2], acc.z);
        atomicAdd(&wsum[3], acc.w);
    }
    workgroupBarrier();
    if (lid == 0u) {
        let count = atomicLoad(&wsum[3]);
        if (count != 0u) {
            add_wide(0u, count);
            add_wide(2u, atomicLoad(&wsum[0]));
            add_wide(4u, atomicLoad(&wsum[1]));
            add_wide(6u, atomicLoad(&wsum[2]));
        }
        if (wid.x == 0u) {
            atomicStore(&colour[8], mode);
        }
    }
}
