// Motion between a frame and its running average (`motion_centroid.rs`, GPUImage's
// GPUImageMotionComparison followed by its average): a pixel moved where the RGB distance of
// the two, in 8-bit levels squared, is at least `threshold2`; the moving pixels are counted
// with the sums of their coordinates. One workgroup per 16x16 tile sums in workgroup memory
// (at most 256 pixels, coordinates below 2^16: every partial fits a u32), then adds to the
// 64-bit totals once (lo/hi words with carry). CPU twin: `motion_cpu`.

@group(0) @binding(0) var<storage, read> frame: array<u32>;
@group(0) @binding(1) var<storage, read> average: array<u32>;
@group(0) @binding(2) var<storage, read_write> motion: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> p: MotionParams;

// zero-initialised at the start of each workgroup
var<workgroup> moving: atomic<u32>;
var<workgroup> sum_x: atomic<u32>;
var<workgroup> sum_y: atomic<u32>;

fn rgb(v: u32) -> vec3<i32> {
    return vec3<i32>(i32(v & 0xFFu), i32((v >> 8u) & 0xFFu), i32((v >> 16u) & 0xFFu));
}

fn add64(i: u32, v: u32) {
    let old = atomicAdd(&motion[i], v);
    if (old + v < old) {
        atomicAdd(&motion[i + 1u], 1u);
    }
}

@compute @workgroup_size(16, 16)
fn motion_centroid(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (gid.x < p.width && gid.y < p.height) {
        let i = gid.y * p.width + gid.x;
        let d = rgb(frame[i]) - rgb(average[i]);
        if (u32(dot(d, d)) >= p.threshold2) {
            atomicAdd(&moving, 1u);
            atomicAdd(&sum_x, gid.x);
            atomicAdd(&sum_y, gid.y);
        }
    }
    workgroupBarrier();
    if (lid == 0u) {
        let n = atomicLoad(&moving);
        if (n > 0u) {
            add64(0u, n);
            add64(2u, atomicLoad(&sum_x));
            add64(4u, atomicLoad(&sum_y));
        }
        if (gid.x == 0u && gid.y == 0u) {
            atomicStore(&motion[6], p.width);
            atomicStore(&motion[7], p.height);
        }
    }
}
