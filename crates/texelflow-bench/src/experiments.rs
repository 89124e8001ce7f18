//! The bench-only kernels: the copy yardstick and the kernel-shape experiments (`texelflow
//! bench --experiments`), each a filter of its own (never registered) that the harness puts in
//! a pipeline like any other; and the alternative schedules the experiments time.

use texelflow::extend::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use texelflow::filters::registry::{Family, Filter, FilterDef, Footprint, EXACT_ENOUGH, IMAGE};
use texelflow::{Result, Value, ValueDesc};

use crate::BenchCase;

/// Registry-shaped declaration for the benchmark-only kernels below (never registered).
static COPY_DEF: FilterDef = FilterDef {
    name: "copy",
    family: Family::Convert,
    summary: "benchmark yardstick",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(copy_kernel())),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// The copy yardstick: 16-byte loads and stores, one `vec4<u32>` (4 pixels) per invocation,
/// with the device's default runtime checks like every other kernel.
pub(crate) fn copy_kernel() -> Experiment {
    Experiment {
        name: "copy",
        wgsl: EXP_COPY_VEC4.into(),
        per_thread: 4,
        checks: None,
        grid: None,
    }
}

/// Kernel-shape experiments (`texelflow bench --experiments`): the same trivial work in
/// different schedules and with different wgpu runtime checks, to find out what the
/// driver makes slow. Each reads and writes one RGBA8 image (the `read_*` probes only read
/// it: their output binding is written only under a condition that never holds, so the
/// case's GB/s, which counts an output, is twice the real rate); see docs/perf-notes.md.
#[derive(Clone, Debug)]
pub(crate) struct Experiment {
    pub(crate) name: &'static str,
    wgsl: std::borrow::Cow<'static, str>,
    /// Pixels per invocation (of a one-pass grid; see `grid`).
    per_thread: u32,
    checks: Option<wgpu::ShaderRuntimeChecks>,
    /// `Some(g)`: a grid-stride kernel of exactly `g` workgroups of 256, whose uniform holds
    /// the loop step in invocations (`n.y`); `None`: one invocation per `per_thread` pixels.
    grid: Option<u32>,
}

const EXP_HEADER: &str = "
@group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> n: vec4<u32>;
";
const EXP_HEADER1: &str = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> n: vec4<u32>;
";
const EXP_COPY_U32: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < n.x) { dst[i] = src[i]; }
}";
const EXP_INVERT_U32: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < n.x) { let c = unpack4x8unorm(src[i]); dst[i] = pack4x8unorm(vec4<f32>(1.0 - c.rgb, c.a)); }
}";
const EXP_INVERT_LOOP: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let s = src4[i];
    var o: vec4<u32>;
    for (var k = 0u; k < 4u; k++) {
        let c = unpack4x8unorm(s[k]);
        o[k] = pack4x8unorm(vec4<f32>(1.0 - c.rgb, c.a));
    }
    dst4[i] = o;
}";
const EXP_INVERT_UNROLLED: &str = "
fn inv(p: u32) -> u32 { let c = unpack4x8unorm(p); return pack4x8unorm(vec4<f32>(1.0 - c.rgb, c.a)); }
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let s = src4[i];
    dst4[i] = vec4<u32>(inv(s.x), inv(s.y), inv(s.z), inv(s.w));
}";
const EXP_COPY_VEC4: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < n.x) { dst4[i] = src4[i]; }
}";
/// Write-only probe, the copy's shape: one 16-byte store per invocation of a value made from
/// its index (the input is bound, as every kernel here binds it, and never read).
const EXP_WRITE_VEC4: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    if (i == 0xFFFFFFFFu) { dst4[0] = src4[0]; }
    dst4[i] = vec4<u32>(i, i ^ 0x55555555u, i * 3u, ~i);
}";
/// End of the read-only probes: what was read must be used, or the compiler drops the
/// loads; a store under a comparison with a constant no xor of image words will equal
/// (2^-128 odds per invocation) keeps them, and nothing is written.
const EXP_READ_SINK: &str = "    if (all(acc == vec4<u32>(0x9e3779b9u, 0x7f4a7c15u, 0xf39cc060u, 0x5ced1d2bu))) { dst4[i] = acc; }\n}\n";
/// Read-only probe, the copy's shape: one 16-byte load per invocation, one invocation per
/// quad (many workgroups).
fn exp_read_flat() -> String {
    String::from("
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let acc = src4[i];
") + EXP_READ_SINK
}
/// Read-only probe, a fixed grid: each invocation walks the quads `i, i + n.y, ...` with
/// `loads` independent 16-byte loads per iteration (all issued before any is used), xored
/// into an accumulator; its last 0..loads-1 quads are loaded together under bounds checks,
/// so every quad of the image is read exactly once.
fn exp_read_grid(loads: u32) -> String {
    let mut s = String::from("
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let st = n.y;
    var acc = vec4<u32>(0u);
    var q = i;
");
    s += &format!(
        "    for (; q + {}u * st < n.x; q += {loads}u * st) {{\n",
        loads - 1
    );
    for k in 0..loads {
        s += &format!("        let a{k} = src4[q + {k}u * st];\n");
    }
    s += &format!(
        "        acc ^= {};\n    }}\n",
        (0..loads)
            .map(|k| format!("a{k}"))
            .collect::<Vec<_>>()
            .join(" ^ ")
    );
    for k in 0..loads - 1 {
        s += &format!("    var b{k} = vec4<u32>(0u);\n    if (q + {k}u * st < n.x) {{ b{k} = src4[q + {k}u * st]; }}\n");
    }
    s += &format!(
        "    acc ^= {};\n",
        (0..loads - 1)
            .map(|k| format!("b{k}"))
            .collect::<Vec<_>>()
            .join(" ^ ")
    );
    s + EXP_READ_SINK
}
/// Gather probe, the floor of `lookup`'s `cells` schedule with random colours: the copy's
/// shape (16-byte load and store per invocation) plus, per pixel, one `bytes`-byte gather
/// (16 or 32) at a random place in a table of 2^18 entries (the 8 MiB of the cell table at
/// 32 bytes; the table is the head of the input buffer, so nothing else has to be bound). The
/// index comes from the pixel itself, as the lookup's cell does.
fn exp_gather(bytes: u32) -> String {
    let per = bytes / 16;
    let mut s = String::from("
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let s = src4[i];
    var o: vec4<u32>;
");
    for k in 0..4 {
        s += &format!(
            "    {{
        let e = (s[{k}] & 0x3FFFFu) * {per}u;
        var g = src4[e];
"
        );
        for j in 1..per {
            s += &format!(
                "        g ^= src4[e + {j}u];
"
            );
        }
        s += &format!(
            "        o[{k}] = g.x ^ g.y ^ g.z ^ g.w;
    }}
"
        );
    }
    s + "    dst4[i] = o;
}
"
}
/// Workgroups of the grid-stride read probes: 8 per SM of an H100/H200 (132 SMs), a full
/// wave of 2048 invocations per SM.
const EXP_READ_GROUPS: u32 = 132 * 8;

impl Filter for Experiment {
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &COPY_DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![inputs[0]])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Ok(vec![inputs[0].clone()])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let px = inputs[0].desc.gpu_bytes() / 4;
        let n = px.div_ceil(self.per_thread as u64) as u32;
        let header = if self.per_thread == 4 {
            EXP_HEADER
        } else {
            EXP_HEADER1
        };
        let mut k = Kernel::new(&format!("exp_{}", self.name), &[header], "main");
        k.generated = Some(self.wgsl.to_string());
        k.checks = self.checks;
        let (groups, stride) = match self.grid {
            Some(g) => ([g, 1, 1], g * 256),
            None => (groups_1d(n as u64, 256), 0),
        };
        rec.dispatch(
            &k,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&[n, stride, 0, 0]),
            groups,
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

pub(crate) fn experiments() -> Vec<Experiment> {
    let all = Some(wgpu::ShaderRuntimeChecks::checked());
    let none = Some(wgpu::ShaderRuntimeChecks::unchecked());
    let e = |name, wgsl: &'static str, per_thread, checks| Experiment {
        name,
        wgsl: wgsl.into(),
        per_thread,
        checks,
        grid: None,
    };
    // read-only probes (`reduce`'s ceiling), with the device's default checks like the copy
    let read = |name, wgsl: String, grid| Experiment {
        name,
        wgsl: wgsl.into(),
        per_thread: 4,
        checks: None,
        grid,
    };
    vec![
        e("copy_vec4_checked", EXP_COPY_VEC4, 4, all),
        e("copy_vec4_unchecked", EXP_COPY_VEC4, 4, none),
        e("copy_u32_checked", EXP_COPY_U32, 1, all),
        e("copy_u32_unchecked", EXP_COPY_U32, 1, none),
        e("invert_u32_checked", EXP_INVERT_U32, 1, all),
        e("invert_u32_unchecked", EXP_INVERT_U32, 1, none),
        e("invert_vec4_loop_checked", EXP_INVERT_LOOP, 4, all),
        e("invert_vec4_loop_default", EXP_INVERT_LOOP, 4, None),
        e("invert_vec4_loop_unchecked", EXP_INVERT_LOOP, 4, none),
        e("invert_vec4_unrolled_checked", EXP_INVERT_UNROLLED, 4, all),
        e(
            "invert_vec4_unrolled_unchecked",
            EXP_INVERT_UNROLLED,
            4,
            none,
        ),
        read("read_vec4_flat", exp_read_flat(), None),
        // write-only: the floor of kernels that write an image and read little (resize up,
        // the decimated Gaussian's interpolation pass)
        e("write_vec4", EXP_WRITE_VEC4, 4, None),
        read("read_vec4_grid_u4", exp_read_grid(4), Some(EXP_READ_GROUPS)),
        read("read_vec4_grid_u8", exp_read_grid(8), Some(EXP_READ_GROUPS)),
        // copy plus one random gather per pixel from a 2^18-entry table: the `lookup` floor
        Experiment {
            name: "gather32_8mib",
            wgsl: exp_gather(32).into(),
            per_thread: 4,
            checks: None,
            grid: None,
        },
        Experiment {
            name: "gather16_4mib",
            wgsl: exp_gather(16).into(),
            per_thread: 4,
            checks: None,
            grid: None,
        },
    ]
}

/// The experiment cases: kernel shapes named `exp:<name>`, then every filter's alternative
/// schedules (`runtime::schedule`) on the operations of the performance targets, named
/// `<case> [<filter>=<variant>]`, so defaults and alternatives are timed in one run.
pub fn experiment_cases(width: u32, height: u32) -> Vec<BenchCase> {
    let mut v: Vec<BenchCase> = experiments()
        .iter()
        .map(|e| BenchCase::new(&format!("exp:{}", e.name), &format!("@exp:{}", e.name)))
        .collect();
    for (name, spec, overrides) in schedule_variants() {
        let label = format!("{name} [{overrides}]");
        // the upscaling case starts from a half-size image, as in `default_cases`
        let case = if name.contains("1080p->4K") {
            BenchCase::sized(&label, spec, width / 2, height / 2)
        } else {
            BenchCase::new(&label, spec)
        };
        // the Gray8 cases on the random image's luminance, as in `default_cases`
        let case = if name.ends_with("gray8") {
            case.gray8()
        } else {
            case
        };
        v.push(case.scheduled(overrides));
    }
    v
}

/// Alternative schedules worth timing against the defaults: (case name, spec, overrides).
fn schedule_variants() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        // previous defaults, by name (docs/perf-notes.md, run 8 and 9; g5 for reduce's
        // scalar u4q16 and average_luminance_threshold's full reduce)
        ("reduce", "reduce", "reduce=u4q16"),
        ("reduce", "reduce", "reduce=swar"),
        // `dp4` with other loop shapes (the default is u4q16; q8 fills a wave at 4K, q32 a quarter)
        ("reduce", "reduce", "reduce=dp4_u8q16"),
        // software-pipelined loop (`_pf`, session 6) in several shapes
        ("reduce", "reduce", "reduce=dp4_pf"),
        ("reduce", "reduce", "reduce=dp4_pf_u2q16"),
        ("reduce", "reduce", "reduce=dp4_pf_u4q8"),
        ("reduce", "reduce", "reduce=dp4_pf_u2q8"),
        ("reduce", "reduce", "reduce=dp4_pf_u8q32"),
        ("reduce", "reduce", "reduce=swar_pf"),
        (
            "average_luminance_threshold",
            "average_luminance_threshold",
            "average_luminance_threshold=ysum_pf",
        ),
        (
            "average_luminance_threshold",
            "average_luminance_threshold",
            "average_luminance_threshold=reduce",
        ),
        ("histogram", "histogram", "histogram=u1q16"),
        ("mean_saturation", "mean_saturation", "mean_saturation=u1q8"),
        (
            "sobel_edge_detection",
            "sobel_edge_detection",
            "sobel_edge_detection=tile",
        ),
        ("lookup 512 LUT", "lookup(lut=@lut)", "lookup=tile"),
        // box_blur (session 8): the kernels with their marked loops unrolled (the defaults,
        // `sweep_short` below BLOCKS_FROM and `blocks_lb2` from it) against the same kernels
        // with loops (`_loops`, the defaults before: private arrays in local memory on
        // NVIDIA), and the other shapes unrolled
        ("box_blur 9x9", "box_blur(radius=4)", "box_blur=sweep_short"),
        (
            "box_blur 13x13",
            "box_blur(radius=6)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 13x13",
            "box_blur(radius=6)",
            "box_blur=blocks_lb2",
        ),
        (
            "box_blur 17x17",
            "box_blur(radius=8)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 17x17",
            "box_blur(radius=8)",
            "box_blur=blocks_lb2",
        ),
        (
            "box_blur 21x21",
            "box_blur(radius=10)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 21x21",
            "box_blur(radius=10)",
            "box_blur=blocks_lb2",
        ),
        ("box_blur 9x9", "box_blur(radius=4)", "box_blur=blocks_lb2"),
        (
            "box_blur 31x31",
            "box_blur(radius=15)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 31x31",
            "box_blur(radius=15)",
            "box_blur=blocks_lb2",
        ),
        ("box_blur 31x31", "box_blur(radius=15)", "box_blur=blocks"),
        (
            "box_blur 129x129",
            "box_blur(radius=64)",
            "box_blur=blocks_lb2_loops",
        ),
        ("box_blur 129x129", "box_blur(radius=64)", "box_blur=blocks"),
        (
            "box_blur 129x129",
            "box_blur(radius=64)",
            "box_blur=sweep_short",
        ),
        // bench-only ablation of `blocks` (wrong images): the walk without the horizontal pass
        (
            "box_blur 9x9",
            "box_blur(radius=4)",
            "box_blur=blocks_ablate_walk",
        ),
        // gaussian: the decimated schedule (default from sigma ~5.1, where its bound first
        // allows a node spacing) against the previous default, the register-blocked two
        // passes (`tile` names the default choice); one of its knobs
        // (gaussian_blur::DecimateOptions), the row pass from workgroup memory; and each of
        // its passes alone (bench-only ablations, wrong images)
        (
            "gaussian_blur s=5.5",
            "gaussian_blur(sigma=5.5)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=5.5",
            "gaussian_blur(sigma=5.5)",
            "gaussian_blur=twopass",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=twopass_packed",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_packed",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_h_only",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_v_only",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_up_only",
        ),
        // the f16 direct filter (`half`, the default from session 6) and its shapes, against
        // the f32 choice (fused tile, two passes) and f32 arithmetic in the same shape
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_f32",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_wg96",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_late",
        ),
        // session 8: finer occupancy steps at sigma 3 (111 registers: 4 workgroups of 128 per SM)
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_wg96",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_early",
        ),
        (
            "gaussian_blur s=2.5",
            "gaussian_blur(sigma=2.5)",
            "gaussian_blur=half_early",
        ),
        (
            "gaussian_blur s=2.5",
            "gaussian_blur(sigma=2.5)",
            "gaussian_blur=half_late",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=half_late",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_nb2",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_nf3",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_f32",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_nb2",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=half_f32",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=half_nf4",
        ),
        (
            "gaussian_blur s=4.6",
            "gaussian_blur(sigma=4.6)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=4.6",
            "gaussian_blur(sigma=4.6)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=4.6",
            "gaussian_blur(sigma=4.6)",
            "gaussian_blur=half_f32",
        ),
        // radius 15 in f16 (session 7: sigma 4.7-5.0, before it the decimated schedule at 4.7
        // and 4.8 and the two passes at 4.9 and 5.0)
        (
            "gaussian_blur s=4.8",
            "gaussian_blur(sigma=4.8)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=4.8",
            "gaussian_blur(sigma=4.8)",
            "gaussian_blur=decimate",
        ),
        (
            "gaussian_blur s=5",
            "gaussian_blur(sigma=5)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=5",
            "gaussian_blur(sigma=5)",
            "gaussian_blur=twopass",
        ),
        (
            "gaussian_blur s=5",
            "gaussian_blur(sigma=5)",
            "gaussian_blur=half_nf4",
        ),
        // the column pass first (default from session 6) against the row pass first (`rf`)
        // at every node spacing of the targets' sigmas; row-pass B and node rows transposed
        (
            "gaussian_blur s=5.5",
            "gaussian_blur(sigma=5.5)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_b4",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_b6",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_v_only",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_h_only",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=decimate_cf_b7",
        ),
        (
            "gaussian_blur s=16",
            "gaussian_blur(sigma=16)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=16",
            "gaussian_blur(sigma=16)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=24",
            "gaussian_blur(sigma=24)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=24",
            "gaussian_blur(sigma=24)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_cf_b3",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_cf_tr",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=twopass_packed",
        ),
        (
            "gaussian_blur s=16",
            "gaussian_blur(sigma=16)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=24",
            "gaussian_blur(sigma=24)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=twopass_packed",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_h_only",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_v_only",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_up_only",
        ),
        // the medians' block networks (median_net.rs; the default u32_4x2) against each other and the forgetful selection per output they replaced
        // (`rows4p` the 3x3 default before, `tile` the 5x5 one)
        ("median_3x3", "median_3x3", "median_3x3=rows4p"),
        ("median_3x3", "median_3x3", "median_3x3=tile"),
        ("median_3x3", "median_3x3", "median_3x3=f16_4x1"),
        ("median_3x3", "median_3x3", "median_3x3=f16_4x4"),
        ("median_3x3", "median_3x3", "median_3x3=u32_4x1"),
        ("median_3x3", "median_3x3", "median_3x3=f16_4x2"),
        ("median_3x3", "median_3x3", "median_3x3=u32_4x4"),
        ("median_5x5", "median_5x5", "median_5x5=tile"),
        ("median_5x5", "median_5x5", "median_5x5=f16_4x1"),
        ("median_5x5", "median_5x5", "median_5x5=f16_2x2"),
        ("median_5x5", "median_5x5", "median_5x5=u32_4x1"),
        ("median_5x5", "median_5x5", "median_5x5=f16_4x2"),
        ("median_5x5", "median_5x5", "median_5x5=u32_2x2"),
        // bilateral r=5 (issue 15): the kernel before the tile kernels (`direct`), the tile with
        // 4 output rows per invocation (the default has 2), and the range weight from OpenCV's table
        ("bilateral", "bilateral", "bilateral=direct"),
        ("bilateral", "bilateral", "bilateral=tile"),
        ("bilateral", "bilateral", "bilateral=tile_lut"),
        ("bilateral gray8", "bilateral", "bilateral=direct"),
        ("bilateral gray8", "bilateral", "bilateral=tile"),
        ("bilateral gray8", "bilateral", "bilateral=tile_lut"),
        // the luminance stencils' vec4 window (`rows4`, the default before `rows4s`'s scalars)
        (
            "prewitt_edge_detection",
            "prewitt_edge_detection",
            "prewitt_edge_detection=rows4",
        ),
        ("sketch", "sketch", "sketch=rows4"),
        (
            "threshold_edge_detection",
            "threshold_edge_detection",
            "threshold_edge_detection=rows4",
        ),
        (
            "threshold_sketch",
            "threshold_sketch",
            "threshold_sketch=rows4",
        ),
        ("xy_derivative", "xy_derivative", "xy_derivative=rows4"),
        (
            "local_binary_pattern",
            "local_binary_pattern",
            "local_binary_pattern=rows4",
        ),
        // per-channel ops through a 256-entry table in workgroup memory (filters::pixel)
        ("gamma", "gamma", "gamma=pixel"),
        // morphology, one pass alone (bench-only ablations that give wrong images; see
        // ROWS_ONLY in filters/morphology/separable.rs)
        ("dilation 15x15", "dilation(radius=7)", "dilation=rows_only"),
        ("dilation 15x15", "dilation(radius=7)", "dilation=cols_only"),
        (
            "dilation 65x65",
            "dilation(radius=32)",
            "dilation=rows_only",
        ),
        (
            "dilation 65x65",
            "dilation(radius=32)",
            "dilation=cols_only",
        ),
        // morphology: one pass for small radii (`window`, session 6) and its shapes
        // (the default at radius 1) against the two passes, and at radius 2
        ("dilation 3x3", "dilation(radius=1)", "dilation=twopass"),
        ("dilation 3x3", "dilation(radius=1)", "dilation=window_th32"),
        ("dilation 5x5", "dilation(radius=2)", "dilation=twopass"),
        ("dilation 5x5", "dilation(radius=2)", "dilation=window"),
        // morphology: wider row tiles, blocks of up to 33 in the row pass, and the streaming
        // column pass (filters/morphology/separable.rs: WIDE, WIDE16, VSTREAM; the default
        // picks by radius), against `twopass`, the default before run g3
        ("dilation 15x15", "dilation(radius=7)", "dilation=wide"),
        ("dilation 31x31", "dilation(radius=15)", "dilation=twopass"),
        (
            "dilation 31x31",
            "dilation(radius=15)",
            "dilation=wide_vstream",
        ),
        ("dilation 65x65", "dilation(radius=32)", "dilation=twopass"),
        ("dilation 65x65", "dilation(radius=32)", "dilation=wide"),
        (
            "dilation 65x65",
            "dilation(radius=32)",
            "dilation=wide16_vstream",
        ),
        // morphology in one pass (`onepass`, session 7: van Herk down the columns in
        // registers, along the rows from workgroup memory; the default from radius 2 to
        // ONEPASS_UP_TO) against the two passes, around the switch, and shapes
        ("dilation 3x3", "dilation(radius=1)", "dilation=onepass_nv"),
        (
            "dilation 5x5",
            "dilation(radius=2)",
            "dilation=onepass_nv_m3",
        ),
        ("dilation 7x7", "dilation(radius=3)", "dilation=twopass"),
        (
            "dilation 7x7",
            "dilation(radius=3)",
            "dilation=onepass_nv_m2",
        ),
        ("dilation 15x15", "dilation(radius=7)", "dilation=twopass"),
        ("dilation 15x15", "dilation(radius=7)", "dilation=onepass"),
        (
            "dilation 15x15",
            "dilation(radius=7)",
            "dilation=onepass_nv_hb4",
        ),
        ("dilation 17x17", "dilation(radius=8)", "dilation=twopass"),
        (
            "dilation 17x17",
            "dilation(radius=8)",
            "dilation=onepass_nv",
        ),
        ("dilation 19x19", "dilation(radius=9)", "dilation=twopass"),
        (
            "dilation 19x19",
            "dilation(radius=9)",
            "dilation=onepass_nv",
        ),
        ("dilation 21x21", "dilation(radius=10)", "dilation=twopass"),
        (
            "dilation 21x21",
            "dilation(radius=10)",
            "dilation=onepass_nv",
        ),
        ("dilation 23x23", "dilation(radius=11)", "dilation=wide"),
        (
            "dilation 23x23",
            "dilation(radius=11)",
            "dilation=onepass_nv",
        ),
        (
            "dilation 23x23",
            "dilation(radius=11)",
            "dilation=onepass_nv_wg128",
        ),
        ("dilation 27x27", "dilation(radius=13)", "dilation=wide"),
        (
            "dilation 27x27",
            "dilation(radius=13)",
            "dilation=onepass_nv_wg128",
        ),
        ("dilation 29x29", "dilation(radius=14)", "dilation=wide"),
        (
            "dilation 29x29",
            "dilation(radius=14)",
            "dilation=onepass_nv_wg128",
        ),
        (
            "dilation 31x31",
            "dilation(radius=15)",
            "dilation=onepass_nv_wg128",
        ),
        (
            "dilation 21x21",
            "dilation(radius=10)",
            "dilation=onepass_nv_wg128",
        ),
        (
            "dilation 31x31",
            "dilation(radius=15)",
            "dilation=onepass_nv",
        ),
        ("erosion 15x15", "erosion(radius=7)", "erosion=twopass"),
        // canny (issue 32): schedule `tiles` against the default `unionfind`, and both cut after
        // kernel k (bench-only ablations: not the edge map) for the per-kernel split
        (
            "canny_edge_detection 50/150 gray8",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            "canny_edge_detection=tiles",
        ),
        (
            "canny_edge_detection 50/150 gray8",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            "canny_edge_detection=tiles_upto1",
        ),
        (
            "canny_edge_detection 50/150 gray8",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            "canny_edge_detection=tiles_upto2",
        ),
        (
            "canny_edge_detection 50/150 gray8",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            "canny_edge_detection=unionfind_upto1",
        ),
        (
            "canny_edge_detection 50/150 gray8",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            "canny_edge_detection=unionfind_upto2",
        ),
        (
            "canny_edge_detection 50/150 gray8",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            "canny_edge_detection=unionfind_upto3",
        ),
        // resize: the row-walking kernel with 8 rows per invocation and the previous default
        // (`quads`) against the default (`rows16`)
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows"),
        ("resize 1080p->4K", "resize(scale=2)", "resize=quads"),
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows16_mu"),
        (
            "resize 1080p->4K",
            "resize(scale=2)",
            "resize=rows16_ablate_round",
        ),
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows32"),
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows64"),
        ("resize 4K->1080p", "resize(scale=0.5)", "resize=rows_any"),
        // seed 004's workgroup-memory tile against the defaults (rows16 up, quads down)
        ("resize 1080p->4K", "resize(scale=2)", "resize=tile"),
        ("resize 4K->1080p", "resize(scale=0.5)", "resize=tile"),
        // seed 004's hardware sampling (the input copied into a texture first, in the time)
        ("resize 1080p->4K", "resize(scale=2)", "resize=texture"),
        ("resize 4K->1080p", "resize(scale=0.5)", "resize=texture"),
        // bicubic and lanczos3: one output's taps per invocation against the default's row sums
        // shared through workgroup memory (`general_tile`)
        (
            "resize bicubic 1080p->4K",
            "resize(scale=2, method=bicubic)",
            "resize=general_direct",
        ),
        (
            "resize lanczos3 1080p->4K",
            "resize(scale=2, method=lanczos3)",
            "resize=general_direct",
        ),
        // the remap template with four outputs and one 16-byte store per invocation (`quads`)
        // against the default (one output per invocation)
        ("swirl", "swirl", "swirl=quads"),
        (
            "bulge_distortion",
            "bulge_distortion",
            "bulge_distortion=quads",
        ),
        ("pixellate", "pixellate", "pixellate=quads"),
        ("polka_dot", "polka_dot", "polka_dot=quads"),
        ("motion_blur", "motion_blur", "motion_blur=quads"),
    ]
}

#[cfg(test)]
mod tests {
    //! The read-only probes must read every quad of the image exactly once: with the sink
    //! replaced by an unconditional store of each invocation's xor, the xor of all stores
    //! must equal the xor of the whole input (a quad skipped is missing from it, a quad read
    //! twice cancels out).
    use super::*;
    use std::sync::Arc;
    use texelflow::{Backend, Error, Gpu, Graph, Image, ImageDesc, PixelFormat, RunOptions};

    /// A probe's WGSL under test as a filter: the input image's words at binding 0, an
    /// output of `out_quads` quads at 1 (zeroed first, so quads no invocation stores are 0)
    /// and `uniform` at 2, dispatched as `groups`.
    #[derive(Clone, Debug)]
    struct Probe {
        key: String,
        wgsl: String,
        out_quads: u32,
        uniform: [u32; 4],
        groups: [u32; 3],
    }

    impl Filter for Probe {
        fn def(&self) -> &'static FilterDef {
            &COPY_DEF
        }
        fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
            Footprint::WholeImage
        }
        fn output_descs(&self, _inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
            Ok(vec![ValueDesc::Image(ImageDesc::new(
                self.out_quads * 4,
                1,
                PixelFormat::Rgba8,
            ))])
        }
        fn run_cpu(&self, _: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
            Err(Error::invalid("a GPU probe"))
        }
        fn record_gpu(
            &self,
            rec: &mut NodeRecorder<'_>,
            inputs: &[GpuSlot],
            outputs: &[GpuSlot],
        ) -> Result<()> {
            rec.clear(&outputs[0].buffer);
            // pipelines are cached by key: one per probe
            let mut k = Kernel::new(&self.key, &[EXP_HEADER], "main");
            k.generated = Some(self.wgsl.clone());
            rec.dispatch(
                &k,
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&self.uniform),
                self.groups,
            )
        }
        fn box_clone(&self) -> Box<dyn Filter> {
            Box::new(self.clone())
        }
    }

    /// Runs `filter` on an RGBA8 image of `words` (one pixel each) on the GPU; its output's bytes.
    fn run_on_words(gpu: &Arc<Gpu>, filter: impl Filter + 'static, words: &[u32]) -> Vec<u8> {
        let img = Image::from_u8(
            words.len() as u32,
            1,
            PixelFormat::Rgba8,
            bytemuck::cast_slice(words).to_vec(),
        )
        .expect("image");
        let mut g = Graph::new();
        let src = g.source("image", img.desc()).expect("source");
        let out = g.add1(filter, &[src]).expect("node");
        g.output("out", out).expect("output");
        let r = Backend::Gpu(gpu.clone())
            .run(&g, &[("image", &img)], &RunOptions::default())
            .expect("run");
        match r.get("out") {
            Some(Value::Image(i)) => i.gpu_bytes().into_owned(),
            other => panic!("no image out: {other:?}"),
        }
    }

    fn xor_of_stores(
        gpu: &Arc<Gpu>,
        name: &str,
        wgsl: &str,
        words: &[u32],
        groups: [u32; 3],
        stride: u32,
    ) -> [u32; 4] {
        let quads = (words.len() / 4) as u32;
        let probe = Probe {
            key: format!("test.exp_{name}"),
            wgsl: wgsl.replace(EXP_READ_SINK, "    dst4[i] = acc;\n}\n"),
            out_quads: groups.iter().product::<u32>() * 256,
            uniform: [quads, stride, 0, 0],
            groups,
        };
        let raw = run_on_words(gpu, probe, words);
        let out: &[u32] = bytemuck::cast_slice(&raw);
        let mut x = [0u32; 4];
        for q in out.chunks_exact(4) {
            for c in 0..4 {
                x[c] ^= q[c];
            }
        }
        x
    }

    /// The write-only probe (the experiment as the harness runs it) writes every quad its
    /// index-made value.
    #[test]
    fn write_probe_writes_every_quad() {
        let gpu = crate::tests::gpu();
        let quads = 1000usize;
        let e = experiments()
            .into_iter()
            .find(|e| e.name == "write_vec4")
            .expect("write_vec4");
        let raw = run_on_words(&gpu, e, &vec![0x07070707u32; quads * 4]);
        let out: &[u32] = bytemuck::cast_slice(&raw);
        assert_eq!(out.len(), quads * 4);
        for (i, q) in out.chunks_exact(4).enumerate() {
            let i = i as u32;
            assert_eq!(q, [i, i ^ 0x55555555, i.wrapping_mul(3), !i], "quad {i}");
        }
    }

    #[test]
    fn read_probes_read_every_quad_once() {
        let gpu = crate::tests::gpu();
        let mut s = 0x243F6A8885A308D3u64;
        // quad counts around whole loop iterations of a 2-group grid (stride 512) and more
        for quads in [
            1u32,
            511,
            512,
            513,
            2047,
            2048,
            2049,
            4 * 512 + 3 * 512 + 7,
            9 * 512 - 1,
            20000,
        ] {
            let words: Vec<u32> = (0..quads * 4)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s as u32
                })
                .collect();
            let mut want = [0u32; 4];
            for q in words.chunks_exact(4) {
                for c in 0..4 {
                    want[c] ^= q[c];
                }
            }
            assert_eq!(
                xor_of_stores(
                    &gpu,
                    "read_flat",
                    &exp_read_flat(),
                    &words,
                    groups_1d(quads as u64, 256),
                    0
                ),
                want,
                "flat, {quads} quads"
            );
            for loads in [4, 8] {
                assert_eq!(
                    xor_of_stores(
                        &gpu,
                        &format!("read_grid_u{loads}"),
                        &exp_read_grid(loads),
                        &words,
                        [2, 1, 1],
                        512
                    ),
                    want,
                    "grid u{loads}, {quads} quads"
                );
            }
        }
    }
}
