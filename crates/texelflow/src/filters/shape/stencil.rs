//! The stencil shape (GPUImage's `GPUImage3x3TextureSamplingFilter`): a filter computes one
//! RGBA colour from the K x K neighbourhood of a pixel (K = 3 or 5), `n[0]` top left, row by
//! row, `n[K*K/2]` the pixel itself; borders replicate the edge pixels, or, with the
//! `border=reflect` parameter the template gives every stencil filter, reflect (OpenCV's
//! BORDER_REFLECT_101, through `pad` and `crop`: `shape::border`). The template owns the
//! kernel: a workgroup loads its tile plus the halo once into workgroup memory (the Sobel
//! kernel's loader), then each invocation gathers its window from there and calls the
//! filter's function. `stencil_filter!` declares a filter of this shape.

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{expect_image, input_image, FilterDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::UniformBlock;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// `StencilOp::RGBA8`: records a filter's own RGBA8 kernel from `src` into `dst`.
type Rgba8Kernel = fn(&mut NodeRecorder<'_>, &GpuSlot, &GpuSlot, &crate::ImageDesc) -> Result<bool>;

/// A K x K stencil filter on RGBA8; implemented by `stencil_filter!`.
pub trait StencilOp: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// The filter's registry entry.
    const DEF: &'static FilterDef;
    /// WGSL function name (the filter name).
    const FN_NAME: &'static str;
    /// WGSL parameter struct name.
    const PARAMS_STRUCT: &'static str;
    /// The window side, 3 or 5.
    const SIZE: u32;
    /// WGSL body of `fn stencil_load(c: vec4<f32>) -> vec4<f32>`, applied to each pixel as the
    /// window is loaded (once per loaded pixel, shared by the outputs that see it) instead of
    /// in the function per use; the function's `n` then holds loaded values. E.g. the 8-bit
    /// luminance of the edge stencils, which the function would otherwise compute nine times
    /// per output.
    const LOAD: Option<&'static str> = None;
    /// `LOAD`'s body returns one `f32` (the luminance stencils, declared with `load_scalar:`):
    /// the function's window entries are then `vec4(v, 0, 0, 0)`, which the `rows4s` walk
    /// builds from a window of scalars (a quarter of the registers of `rows4`'s vec4 window).
    const LOAD_SCALAR: bool = false;
    /// Takes Gray8 images: each byte v is presented to the function (and to `LOAD`) as
    /// (v, v, v, 1) and the output keeps the red channel, so the result is the red channel of
    /// the filter run on the image widened to RGBA (`gray: false` where that means nothing).
    const GRAY: bool = true;
    /// A kernel of the filter's own for RGBA8 (e.g. the medians' block networks): records and
    /// returns `Ok(true)`, or `Ok(false)` where the schedule names one of the template's.
    const RGBA8: Option<Rgba8Kernel> = None;
    /// The parameter block uploaded for this instance.
    fn uniform(&self) -> UniformBlock;
    /// The parameter struct and `fn name(n: array<vec4<f32>, K*K>, p) -> vec4<f32>`.
    fn wgsl() -> &'static str;
    /// The kernels around the function, generated once.
    fn kernels() -> &'static StencilKernels;
    /// CPU twin; `n` as in the WGSL, on [0, 1] RGBA.
    fn apply(&self, n: &[[f32; 4]]) -> [f32; 4];
}

/// Workgroup tile (16 x 16 outputs): schedule choice, not measured yet.
const TX: u32 = 16;
const TY: u32 = 16;

/// The WGSL of a declared stencil filter.
pub fn generate_wgsl(
    name: &str,
    params_struct: &str,
    layout: &UniformBlock,
    size: u32,
    helpers: &str,
    body: &str,
) -> String {
    super::pixel::declared_wgsl(
        name,
        params_struct,
        layout,
        &format!("n: array<vec4<f32>, {}>, ", size * size),
        "",
        "vec4<f32>",
        helpers,
        body,
    )
}

/// `stencil_load` and `stencil_load_u` (from a packed pixel) for a filter with `LOAD`; empty
/// else. A scalar `LOAD` (`LOAD_SCALAR`) is `stencil_load_s` (and `stencil_load_su` from a
/// packed pixel), and `stencil_load` its value as `stencil_vec` presents it to the function.
fn load_fns<T: StencilOp>() -> String {
    let u = "fn stencil_load_u(x: u32) -> vec4<f32> { return stencil_load(unorm_unpack(x)); }\n";
    match T::LOAD {
        Some(body) if T::LOAD_SCALAR => format!(
            "fn stencil_load_s(c: vec4<f32>) -> f32 {{\n    {body}\n}}\n\
             fn stencil_load_su(x: u32) -> f32 {{ return stencil_load_s(unorm_unpack(x)); }}\n\
             fn stencil_vec(v: f32) -> vec4<f32> {{ return vec4<f32>(v, 0.0, 0.0, 0.0); }}\n\
             fn stencil_load(c: vec4<f32>) -> vec4<f32> {{ return stencil_vec(stencil_load_s(c)); }}\n{u}"
        ),
        Some(body) => format!("fn stencil_load(c: vec4<f32>) -> vec4<f32> {{\n    {body}\n}}\n{u}"),
        None => String::new(),
    }
}

/// The declared schedules of a stencil filter of side `size` that declares none: the
/// template's 3x3 alternatives (`rows4s` where the load transform is scalar).
pub const fn default_schedules(size: u32, scalar_load: bool) -> &'static [&'static str] {
    match (size, scalar_load) {
        (3, true) => &["tile", "rows4", "rows4s"],
        (3, false) => &["tile", "rows4"],
        _ => &[],
    }
}

/// The kernel around `op`'s function: tile + halo in workgroup memory, then one output per
/// invocation with its window gathered by literal indices.
pub fn kernel_source<T: StencilOp>() -> String {
    let k = T::SIZE;
    let r = k / 2;
    let (lw, lh) = (TX + 2 * r, TY + 2 * r);
    debug_assert!(lw * lh <= 20 * 20, "tile fits the workgroup memory budget");
    let load = if T::LOAD.is_some() {
        "stencil_load_u"
    } else {
        "unorm_unpack"
    };
    let mut s = load_fns::<T>();
    s += &format!(
        "struct StencilParams {{\n    width: u32, height: u32, _p0: u32, _p1: u32,\n    op: {ps},\n}}\n\
         @group(0) @binding(0) var<storage, read> src: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n\
         @group(0) @binding(2) var<uniform> sp: StencilParams;\n\
         var<workgroup> tile: array<vec4<f32>, {area}>;\n\
         @compute @workgroup_size({TX}, {TY})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n\
         \x20   let x0 = i32(wid.x * {TX}u) - {r};\n\
         \x20   let y0 = i32(wid.y * {TY}u) - {r};\n\
         \x20   let wmax = i32(sp.width) - 1;\n\
         \x20   let hmax = i32(sp.height) - 1;\n\
         \x20   for (var i = li; i < {area}u; i += {threads}u) {{\n\
         \x20       let ry = i / {lw}u;\n\
         \x20       let gx = u32(clamp(x0 + i32(i - ry * {lw}u), 0, wmax));\n\
         \x20       let gy = u32(clamp(y0 + i32(ry), 0, hmax));\n\
         \x20       tile[i] = {load}(src[gy * sp.width + gx]);\n\
         \x20   }}\n\
         \x20   workgroupBarrier();\n\
         \x20   let x = wid.x * {TX}u + lid.x;\n\
         \x20   let y = wid.y * {TY}u + lid.y;\n\
         \x20   if (x >= sp.width || y >= sp.height) {{ return; }}\n\
         \x20   let base = lid.y * {lw}u + lid.x;\n\
         \x20   var n: array<vec4<f32>, {kk}>;\n",
        ps = T::PARAMS_STRUCT,
        area = lw * lh,
        threads = TX * TY,
        kk = k * k,
    );
    for dy in 0..k {
        for dx in 0..k {
            s += &format!("    n[{}] = tile[base + {}u];\n", dy * k + dx, dy * lw + dx);
        }
    }
    s += &format!(
        "    dst[y * sp.width + x] = unorm_pack({}(n, sp.op));\n}}\n",
        T::FN_NAME
    );
    s
}

/// Workgroup of the Gray8 kernel: words (4 pixels each) across, rows down.
const GRAY_WX: u32 = 8;
const GRAY_WY: u32 = 16;

/// The Gray8 kernel: the tile's bytes loaded once into workgroup memory, as scalars v read back
/// as (v, v, v, 1), or as vectors through `stencil_load` where the filter has one; then four
/// windows per invocation, the red channel of each result packed into one output word (bytes
/// past the row's end 0). Scalars: a quarter of the workgroup memory and of its loads (with
/// vectors the Gray8 sharpen took 0.086 ms at 4K on an H100, twice the RGBA8 one).
pub fn kernel_source_gray<T: StencilOp>() -> String {
    let k = T::SIZE;
    let r = k / 2;
    let (tw, th) = (4 * GRAY_WX, GRAY_WY);
    let (lw, lh) = (tw + 2 * r, th + 2 * r);
    let scalar = T::LOAD.is_none();
    let (tile_ty, store) = if scalar {
        ("f32", "g")
    } else {
        ("vec4<f32>", "stencil_load(vec4<f32>(g, g, g, 1.0))")
    };
    let mut s = load_fns::<T>();
    s += &format!(
        "struct StencilParams {{\n    width: u32, height: u32, words: u32, _p1: u32,\n    op: {ps},\n}}\n\
         @group(0) @binding(0) var<storage, read> src: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n\
         @group(0) @binding(2) var<uniform> sp: StencilParams;\n\
         var<workgroup> tile: array<{tile_ty}, {area}>;\n\
         @compute @workgroup_size({GRAY_WX}, {GRAY_WY})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n\
         \x20   let x0 = i32(wid.x * {tw}u) - {r};\n\
         \x20   let y0 = i32(wid.y * {th}u) - {r};\n\
         \x20   let wmax = i32(sp.width) - 1;\n\
         \x20   let hmax = i32(sp.height) - 1;\n\
         \x20   for (var i = li; i < {area}u; i += {threads}u) {{\n\
         \x20       let ry = i / {lw}u;\n\
         \x20       let gx = u32(clamp(x0 + i32(i - ry * {lw}u), 0, wmax));\n\
         \x20       let gy = u32(clamp(y0 + i32(ry), 0, hmax));\n\
         \x20       let g = f32((src[gy * sp.words + gx / 4u] >> (8u * (gx % 4u))) & 255u) / 255.0;\n\
         \x20       tile[i] = {store};\n\
         \x20   }}\n\
         \x20   workgroupBarrier();\n\
         \x20   let xw = wid.x * {GRAY_WX}u + lid.x;\n\
         \x20   let y = wid.y * {th}u + lid.y;\n\
         \x20   if (xw >= sp.words || y >= sp.height) {{ return; }}\n\
         \x20   var word = 0u;\n\
         \x20   for (var j = 0u; j < 4u; j++) {{\n\
         \x20       if (xw * 4u + j >= sp.width) {{ break; }}\n\
         \x20       let base = lid.y * {lw}u + lid.x * 4u + j;\n\
         \x20       var n: array<vec4<f32>, {kk}>;\n",
        ps = T::PARAMS_STRUCT,
        area = lw * lh,
        threads = GRAY_WX * GRAY_WY,
        kk = k * k,
    );
    for dy in 0..k {
        for dx in 0..k {
            if scalar {
                s += &format!(
                    "        {{ let v = tile[base + {}u]; n[{}] = vec4<f32>(v, v, v, 1.0); }}\n",
                    dy * lw + dx,
                    dy * k + dx
                );
            } else {
                s += &format!(
                    "        n[{}] = tile[base + {}u];\n",
                    dy * k + dx,
                    dy * lw + dx
                );
            }
        }
    }
    s += &format!("        word |= (unorm_pack({}(n, sp.op)) & 255u) << (8u * j);\n    }}\n    dst[y * sp.words + xw] = word;\n}}\n", T::FN_NAME);
    s
}

/// The generated kernels of one stencil filter, by schedule.
pub struct StencilKernels {
    /// The default: tile and halo in workgroup memory, one output per invocation.
    pub tile: String,
    /// Gray8: a byte per pixel, four outputs (one word) per invocation.
    pub gray: String,
    /// 3x3 only (empty for 5x5).
    pub rows4: String,
    /// `rows4` with the window kept packed (one u32 a pixel) and unpacked per use.
    pub rows4_packed: String,
    /// `rows4s`: `rows4` with a window of the scalars of a scalar load transform (3x3 with
    /// `LOAD_SCALAR` only, else empty).
    pub rows4_scalar: String,
}

impl StencilKernels {
    /// Generates every kernel of `T`.
    pub fn new<T: StencilOp>() -> Self {
        let three = T::SIZE == 3;
        Self {
            tile: kernel_source::<T>(),
            gray: if T::GRAY {
                kernel_source_gray::<T>()
            } else {
                String::new()
            },
            rows4: if three {
                kernel_source_rows4::<T>(Rows4Window::Unpacked)
            } else {
                String::new()
            },
            rows4_packed: if three {
                kernel_source_rows4::<T>(Rows4Window::Packed)
            } else {
                String::new()
            },
            rows4_scalar: if three && T::LOAD_SCALAR {
                kernel_source_rows4::<T>(Rows4Window::Scalar)
            } else {
                String::new()
            },
        }
    }
}

/// Workgroup of the `rows4` schedule (3x3 only, widths a multiple of 4): invocations, each
/// owning 4 columns, and output rows walked down per workgroup. Sobel's tuned shape.
const ROWS4_SW: u32 = 64;
const ROWS4_RY: u32 = 16;

/// What the `rows4` walk's window holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows4Window {
    /// The pixels unpacked (through the load transform): 72 registers, 18 unpacks.
    Unpacked,
    /// The raw pixels (18 registers), unpacked at each use (36 unpacks for 4 outputs).
    Packed,
    /// The scalars of a scalar load transform (18 registers, 18 transforms), each presented
    /// to the function as `vec4(v, 0, 0, 0)`, as `Unpacked` holds them (Sobel's window).
    Scalar,
}

/// The `rows4` kernel (3x3, widths a multiple of 4; Sobel's tuned schedule): a workgroup owns
/// a strip of 4 * SW columns and walks down RY rows; per input row each invocation makes one
/// 16-byte load, swaps its edge pixels with its neighbours through workgroup memory, keeps the
/// 3-row window (6 pixels a row) in registers and stores its 4 outputs as one 16-byte store.
pub fn kernel_source_rows4<T: StencilOp>(window: Rows4Window) -> String {
    let unpack_px = if T::LOAD.is_some() {
        "stencil_load_u"
    } else {
        "unorm_unpack"
    };
    // the window's type, what each pixel goes through as it enters the window, and at each use
    let (ty, unpack, use_px) = match window {
        Rows4Window::Unpacked => ("vec4<f32>", unpack_px, ""),
        Rows4Window::Packed => ("u32", "", unpack_px),
        Rows4Window::Scalar => ("f32", "stencil_load_su", "stencil_vec"),
    };
    // A scalar window trades its edge scalars with the neighbours, already transformed: 4
    // transforms per row and invocation, not 6 (Sobel's hand-written kernel did the same; 5%
    // on the H200 at 4K). An unpacked window trades raw pixels (vec4 in workgroup memory
    // would be 4x the bytes), so transforms them after the trade.
    let (edge_ty, pre, post) = match window {
        Rows4Window::Scalar => ("f32", unpack, ""),
        _ => ("u32", "", unpack),
    };
    load_fns::<T>() + &format!(
        "struct StencilParams {{\n    width: u32, height: u32, _p0: u32, _p1: u32,\n    op: {ps},\n}}\n\
         @group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;\n\
         @group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;\n\
         @group(0) @binding(2) var<storage, read> src1: array<u32>;\n\
         @group(0) @binding(3) var<uniform> sp: StencilParams;\n\
         var<workgroup> edge_first: array<{edge_ty}, {sw2}>;\n\
         var<workgroup> edge_last: array<{edge_ty}, {sw2}>;\n\
         struct Row {{ l: {ty}, a: {ty}, b: {ty}, c: {ty}, d: {ty}, r: {ty} }}\n\
         fn window(t0: {ty}, t1: {ty}, t2: {ty}, m0: {ty}, m1: {ty}, m2: {ty}, b0: {ty}, b1: {ty}, b2: {ty}) -> u32 {{\n\
         \x20   return unorm_pack({name}(array<vec4<f32>, 9>({u}(t0), {u}(t1), {u}(t2), {u}(m0), {u}(m1), {u}(m2), {u}(b0), {u}(b1), {u}(b2)), sp.op));\n\
         }}\n\
         @compute @workgroup_size({sw})\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let w4 = sp.width / 4u;\n\
         \x20   let quad = wid.x * {sw}u + lid;\n\
         \x20   // past the right edge: a clamped quad, loaded for the barriers, never stored\n\
         \x20   let qx = min(quad, w4 - 1u);\n\
         \x20   let first_row = i32(wid.y * {ry}u) - 1;\n\
         \x20   let hmax = i32(sp.height) - 1;\n\
         \x20   let strip_left = u32(max(i32(wid.x * {sw}u * 4u) - 1, 0));\n\
         \x20   let strip_right = min((wid.x + 1u) * {sw}u * 4u, sp.width - 1u);\n\
         \x20   var t: Row;\n\
         \x20   var m: Row;\n\
         \x20   var b: Row;\n\
         \x20   var next = src4[u32(clamp(first_row, 0, hmax)) * w4 + qx];\n\
         \x20   for (var r = 0u; r < {ry}u + 2u; r++) {{\n\
         \x20       let y = u32(clamp(first_row + i32(r), 0, hmax));\n\
         \x20       let q = next;\n\
         \x20       if (r + 1u < {ry}u + 2u) {{ next = src4[u32(clamp(first_row + i32(r) + 1, 0, hmax)) * w4 + qx]; }}\n\
         \x20       let slot = (r & 1u) * {sw}u;\n\
         \x20       let qa = {pre}(q.x);\n\
         \x20       let qb = {pre}(q.y);\n\
         \x20       let qc = {pre}(q.z);\n\
         \x20       let qd = {pre}(q.w);\n\
         \x20       edge_first[slot + lid] = qa;\n\
         \x20       edge_last[slot + lid] = qd;\n\
         \x20       workgroupBarrier();\n\
         \x20       var lp = qa;\n\
         \x20       if (lid == 0u) {{ lp = select({pre}(src1[y * sp.width + strip_left]), qa, quad == 0u); }} else {{ lp = edge_last[slot + lid - 1u]; }}\n\
         \x20       var rp = qd;\n\
         \x20       if (qx + 1u >= w4) {{ rp = qd; }} else if (lid == {last}u) {{ rp = {pre}(src1[y * sp.width + strip_right]); }} else {{ rp = edge_first[slot + lid + 1u]; }}\n\
         \x20       t = m;\n\
         \x20       m = b;\n\
         \x20       b = Row({post}(lp), {post}(qa), {post}(qb), {post}(qc), {post}(qd), {post}(rp));\n\
         \x20       let oy = wid.y * {ry}u + r;\n\
         \x20       if (r >= 2u && oy - 2u < sp.height && quad < w4) {{\n\
         \x20           dst4[(oy - 2u) * w4 + quad] = vec4<u32>(\n\
         \x20               window(t.l, t.a, t.b, m.l, m.a, m.b, b.l, b.a, b.b),\n\
         \x20               window(t.a, t.b, t.c, m.a, m.b, m.c, b.a, b.b, b.c),\n\
         \x20               window(t.b, t.c, t.d, m.b, m.c, m.d, b.b, b.c, b.d),\n\
         \x20               window(t.c, t.d, t.r, m.c, m.d, m.r, b.c, b.d, b.r));\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n",
        ps = T::PARAMS_STRUCT,
        name = T::FN_NAME,
        ty = ty,
        u = use_px,
        edge_ty = edge_ty,
        pre = pre,
        post = post,
        sw = ROWS4_SW,
        sw2 = 2 * ROWS4_SW,
        ry = ROWS4_RY,
        last = ROWS4_SW - 1,
    )
}

/// CPU driver: each pixel's clamped K x K window through `f`. A Gray8 image's bytes v are
/// presented as (v, v, v, 1) and the red channel of each result kept.
pub fn map_windows(
    img: &Image,
    k: u32,
    f: impl Fn(&[[f32; 4]]) -> [f32; 4] + Sync,
) -> Result<Image> {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let src = img.as_u8();
    let r = (k / 2) as i64;
    let gray = img.format() == PixelFormat::Gray8;
    let n_out = if gray { 1 } else { 4 };
    let px = |x: i64, y: i64| {
        let p = (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize;
        if gray {
            let g = src[p] as f32 / 255.0;
            return [g, g, g, 1.0];
        }
        let i = 4 * p;
        [
            src[i] as f32 / 255.0,
            src[i + 1] as f32 / 255.0,
            src[i + 2] as f32 / 255.0,
            src[i + 3] as f32 / 255.0,
        ]
    };
    let mut out = vec![0u8; src.len()];
    out.par_chunks_mut((n_out * w as usize).max(1))
        .enumerate()
        .for_each(|(y, row)| {
            let mut n = vec![[0.0f32; 4]; (k * k) as usize];
            for x in 0..w {
                for dy in -r..=r {
                    for dx in -r..=r {
                        n[((dy + r) * k as i64 + dx + r) as usize] = px(x + dx, y as i64 + dy);
                    }
                }
                let c = f(&n);
                for ch in 0..n_out {
                    row[n_out * x as usize + ch] = unorm8(c[ch]);
                }
            }
        });
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

/// Records `op` over the input into the output: the filter's own RGBA8 kernel where it has one
/// (`StencilOp::RGBA8`) and the schedule is not the template's, else the template's schedules:
/// `rows4p` (3x3 on widths that are a multiple of 4, the default there), `rows4` (the same
/// walk with the window unpacked; the default there for a load transform), `rows4s` (the same
/// walk with a window of scalars; the default there for a scalar load transform) and `tile`
/// (any width and 5x5).
pub fn record<T: StencilOp>(
    op: &T,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (src, dst, d) = crate::filters::registry::one_to_one(T::DEF, inputs, outputs)?;
    let mut uniform = op.uniform().bytes_after_size(d.width, d.height);
    if d.format == PixelFormat::Gray8 {
        // the third word of the header: words per row
        uniform[8..12].copy_from_slice(&d.width.div_ceil(4).to_le_bytes());
        let kernel = Kernel::new(
            &format!("stencil.gray.{}", T::FN_NAME),
            &[T::wgsl(), T::kernels().gray.as_str()],
            "main",
        );
        return rec.dispatch(
            &kernel,
            &[&src.buffer, &dst.buffer],
            &uniform,
            groups_2d(d.width.div_ceil(4), d.height, GRAY_WX, GRAY_WY),
        );
    }
    if let Some(own) = T::RGBA8 {
        if own(rec, src, dst, &d)? {
            return Ok(());
        }
    }
    let fits = T::SIZE == 3 && d.width.is_multiple_of(4);
    let k = T::kernels();
    let rows4 = match rec.schedule(T::FN_NAME) {
        // a scalar load transform (the luminance stencils): H200 4K (session 13), the same time
        // as rows4 (prewitt 0.0513 / 0.0512 ms, xy_derivative 0.0536 / 0.0539): the compiler
        // had already dropped the unused lanes; kept, it is no slower and holds less
        None | Some("rows4s") if fits && T::LOAD_SCALAR => Some(("rows4s", &k.rows4_scalar)),
        // H200 s9-b4, 4K: convolution_3x3 rows4p 0.0481 ms, rows4 0.0513, tile 0.0867
        // a filter with a load transform: the unpacked window applies it once per loaded pixel
        None if fits && T::LOAD.is_some() => Some(("rows4", &k.rows4)),
        None | Some("rows4p") if fits => Some(("rows4p", &k.rows4_packed)),
        Some("rows4") if fits => Some(("rows4", &k.rows4)),
        Some("rows4s") if T::LOAD_SCALAR => None,
        None | Some("rows4" | "rows4p" | "tile") => None,
        Some(other) => {
            return Err(crate::runtime::schedule::unknown(
                T::FN_NAME,
                other,
                &["rows4", "rows4p", "rows4s", "tile"],
            ))
        }
    };
    if let Some((name, source)) = rows4 {
        let kernel = Kernel::new(
            &format!("stencil.{name}.{}", T::FN_NAME),
            &[T::wgsl(), source.as_str()],
            "main",
        );
        let groups = [
            (d.width / 4).div_ceil(ROWS4_SW),
            d.height.div_ceil(ROWS4_RY),
            1,
        ];
        return rec.dispatch(
            &kernel,
            &[&src.buffer, &dst.buffer, &src.buffer],
            &uniform,
            groups,
        );
    }
    let kernel = Kernel::new(
        &format!("stencil.{}", T::FN_NAME),
        &[T::wgsl(), k.tile.as_str()],
        "main",
    );
    rec.dispatch(
        &kernel,
        &[&src.buffer, &dst.buffer],
        &uniform,
        groups_2d(d.width, d.height, TX, TY),
    )
}

/// Output description: the input's (RGBA8, or Gray8 where the filter takes it).
pub fn output_descs<T: StencilOp>(inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
    let formats: &[PixelFormat] = if T::GRAY {
        &[PixelFormat::Rgba8, PixelFormat::Gray8]
    } else {
        &[PixelFormat::Rgba8]
    };
    Ok(vec![ValueDesc::Image(expect_image(
        T::DEF,
        inputs,
        0,
        formats,
    )?)])
}

/// The CPU twin over an image.
pub fn run_cpu<T: StencilOp>(op: &T, inputs: &[&Value]) -> Result<Vec<Value>> {
    let img = input_image(T::DEF, inputs, 0)?;
    Ok(vec![Value::Image(map_windows(img, T::SIZE, |n| {
        op.apply(n)
    })?)])
}

/// The `Filter` impl of a filter of a kernel shape whose module has `output_descs`, `run_cpu`
/// and `record` (stencil, remap).
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_shape_filter_impl {
    ($Name:ident, $shape:ident, $footprint:expr) => {
        impl $crate::filters::registry::Filter for $Name {
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn footprint(
                &self,
                _inputs: &[$crate::value::ValueDesc],
            ) -> $crate::filters::registry::Footprint {
                $footprint
            }
            fn output_descs(
                &self,
                inputs: &[$crate::value::ValueDesc],
            ) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                $crate::filters::shape::$shape::output_descs::<Self>(inputs)
            }
            fn run_cpu(
                &self,
                inputs: &[&$crate::value::Value],
                _: &[$crate::value::ValueDesc],
            ) -> $crate::Result<Vec<$crate::value::Value>> {
                $crate::filters::shape::$shape::run_cpu(self, inputs)
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                $crate::filters::shape::$shape::record(self, rec, inputs, outputs)
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}

/// Declares a K x K stencil filter in one place: parameters as in `pixel_filter!`,
/// `size: 3` or `5`, a WGSL body reading `n` (the window) and `p`, and a CPU closure
/// `|f, n|` with `n: &[[f32; 4]]` the same window. See `neighborhood/laplacian.rs`.
/// `load: "WGSL body of fn stencil_load(c) -> vec4<f32>"` transforms each pixel as it is
/// loaded (the GPU body then sees transformed values; the CPU closure still gets the pixels);
/// see `neighborhood/sketch.rs`. `load_scalar:` instead, for a transform to one number (its body
/// returns `f32`; the GPU body sees `vec4(v, 0, 0, 0)`), lets the `rows4s` walk hold scalars.
/// Gray8 images are taken (see `StencilOp::GRAY`) unless
/// `gray: false` says the red channel of the result means nothing on its own. Every stencil
/// filter gets the template's `border` parameter unless `border: false` (a filter that keeps
/// replicate borders only, as `sobel_edge_detection` always had).
#[macro_export]
macro_rules! stencil_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        $(doc: $doc:expr,)?
        size: $size:literal,
        params: { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? },
        $(uniform: |$uf:ident| { $( $u:ident : $uty:ty = $uexpr:expr ),* $(,)? },)?
        $(tolerance: $tol:expr,)?
        $(gray: $gray:expr,)?
        $(border: $border:tt,)?
        $(helpers: $helpers:expr,)?
        $(load: $load:expr,)?
        $(load_scalar: $load_scalar:expr,)?
        $(schedules: $sched:expr,)?
        $(rgba8: $rgba8:expr,)?
        wgsl: $wgsl:expr,
        cpu: |$cf:ident, $cn:ident| $cpu:expr $(,)?
    ) => {
        $crate::__pf_params!($(#[$meta])* $Name { $( $p : $kind = $default => $pdoc ),* });

        $crate::__stencil_def! {
            [$($border)?] $Name, $name, $gpuimage, $summary, [$($doc)?],
            [$( $p : $kind $( ( $($karg),* ) )? = $default => $pdoc ),*],
            $crate::__pf_or!([$($tol)?] [$crate::filters::registry::EXACT_ENOUGH]), $crate::__pf_or!([$($sched)?] [$crate::filters::shape::stencil::default_schedules($size, $crate::__pf_or!([$({ let _: &str = $load_scalar; true })?] [false]))])
        }

        impl $crate::filters::shape::stencil::StencilOp for $Name {
            const DEF: &'static $crate::filters::registry::FilterDef = &DEF;
            const FN_NAME: &'static str = $name;
            const PARAMS_STRUCT: &'static str = concat!(stringify!($Name), "Params");
            const SIZE: u32 = $size;
            $(const LOAD: Option<&'static str> = Some($load);)?
            $(const LOAD: Option<&'static str> = Some($load_scalar);
            const LOAD_SCALAR: bool = true;)?
            $(const GRAY: bool = $gray;)?
            $(const RGBA8: Option<fn(&mut $crate::runtime::NodeRecorder<'_>, &$crate::runtime::GpuSlot, &$crate::runtime::GpuSlot, &$crate::ImageDesc) -> $crate::Result<bool>> = Some($rgba8);)?
            $crate::__pf_uniform_fns!([$( |$uf| { $( $u : $uty = $uexpr ),* } )?] [$($p)*], |layout| {
                $crate::filters::shape::stencil::generate_wgsl($name, Self::PARAMS_STRUCT, layout, $size, $crate::__pf_or!([$($helpers)?] [""]), $wgsl)
            });
            fn kernels() -> &'static $crate::filters::shape::stencil::StencilKernels {
                static SRC: std::sync::OnceLock<$crate::filters::shape::stencil::StencilKernels> = std::sync::OnceLock::new();
                SRC.get_or_init($crate::filters::shape::stencil::StencilKernels::new::<Self>)
            }
            #[allow(unused_variables)]
            fn apply(&self, n: &[[f32; 4]]) -> [f32; 4] {
                let $cf = self;
                let $cn = n;
                $cpu
            }
        }

        $crate::__pf_shape_filter_impl!($Name, stencil, $crate::filters::registry::Footprint::Radius($size / 2));
    };
}

/// A stencil filter's `DEF`: with the template's `border` parameter (lowered by
/// `border::from_args`), or without it where the declaration says `border: false`.
#[doc(hidden)]
#[macro_export]
macro_rules! __stencil_def {
    ([false] $Name:ident, $name:literal, $gpuimage:literal, $summary:literal, [$($doc:expr)?], [$($params:tt)*], $tol:expr, $sched:expr) => {
        $crate::__pf_def! {
            $Name, $name, $crate::filters::registry::Family::Neighborhood, $gpuimage, $summary, [$($doc)?], [],
            [$($params)*], [], $crate::filters::registry::IMAGE, $tol, $sched
        }
    };
    ([] $Name:ident, $name:literal, $gpuimage:literal, $summary:literal, [$($doc:expr)?], [$($params:tt)*], $tol:expr, $sched:expr) => {
        $crate::__pf_def! {
            $Name, $name, $crate::filters::registry::Family::Neighborhood, $gpuimage, $summary, [$($doc)?], [],
            [$($params)*], [$crate::filters::shape::border::BORDER_PARAM], $crate::filters::registry::IMAGE, $tol, $sched,
            wrap: $crate::filters::shape::border::from_args
        }
    };
}
