//! The coordinate-remap shape (GPUImage's distortion filters: swirl, bulge, pinch, pixellate):
//! a filter maps each output pixel's normalised position `uv` (its centre, in [0, 1]², as
//! GPUImage's `textureCoordinate`) to the position to read, and the template samples the input
//! there bilinearly with replicate edges. Output size = input size. `remap_filter!` declares a
//! filter of this shape. With `taps`, the function also returns a step and the template sums
//! weighted bilinear samples at `position + k step` (GPUImage's motion and zoom blurs).
//! With `post`, a second function turns the sampled colour into the output colour, given the
//! output position and a sampler for further reads (GPUImage's polka dot, halftone, CGA).

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{expect_image, input_image, FilterDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::UniformBlock;
use crate::runtime::{groups_1d, groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// A coordinate remap on RGBA8; implemented by `remap_filter!`.
pub trait RemapOp: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// The filter's registry entry.
    const DEF: &'static FilterDef;
    /// WGSL function name (the filter name).
    const FN_NAME: &'static str;
    /// WGSL parameter struct name.
    const PARAMS_STRUCT: &'static str;
    /// Weighted samples along a step, `[multiple of the step, weight]`; empty: one sample at the
    /// position (the function then returns a `vec2`, else `vec4(position, step)`).
    const TAPS: &'static [[f32; 2]];
    /// The parameter block uploaded for this instance.
    fn uniform(&self) -> UniformBlock;
    /// The parameter struct and `fn name(uv: vec2<f32>, size: vec2<f32>, p) -> vec2<f32>` (`vec4` with taps).
    fn wgsl() -> &'static str;
    /// The kernel around the function (`kernel_source`), generated once.
    fn kernel() -> &'static str;
    /// CPU twin: the normalised position to read for output position `uv` of an image of
    /// `size` pixels, and the step between taps (zero without taps).
    fn source(&self, uv: [f32; 2], size: [f32; 2]) -> [f32; 4];
    /// With a `post` section: WGSL `fn <name>_post(c, uv, size, p) -> vec4<f32>` (in `wgsl()`)
    /// makes the output from the sampled colour `c`; `sample_at(q)` reads the input at another
    /// normalised position `q` (bilinear, replicate edges). Not with taps.
    const POST: bool = false;
    /// CPU twin of the post function; `sample` reads the input as `sample_at` does.
    fn post(
        &self,
        c: [f32; 4],
        _uv: [f32; 2],
        _size: [f32; 2],
        _sample: &dyn Fn([f32; 2]) -> [f32; 4],
    ) -> [f32; 4] {
        c
    }
}

/// Default `single`: one output per invocation, workgroups of 16 x 16 outputs (2-D locality for
/// the scattered bilinear reads).
const TX: u32 = 16;
const TY: u32 = 16;
/// Schedule `quads`: four consecutive outputs (row-major, wrapping rows) per invocation and one
/// 16-byte store, 256 invocations per workgroup. H200 at 4K (session 13, copy 0.0214 ms): swirl
/// 0.109 ms against single's 0.062, bulge 0.060 / 0.059, pixellate 0.057 / 0.056, polka_dot
/// 0.063 / 0.064: the stores are not what costs (the four bilinear reads per output are).
const QUADS_WG: u32 = 256;

/// The WGSL of a declared remap filter.
pub fn generate_wgsl(
    name: &str,
    params_struct: &str,
    layout: &UniformBlock,
    taps: bool,
    helpers: &str,
    body: &str,
) -> String {
    super::pixel::declared_wgsl(
        name,
        params_struct,
        layout,
        "uv: vec2<f32>, size: vec2<f32>, ",
        "",
        if taps { "vec4<f32>" } else { "vec2<f32>" },
        helpers,
        body,
    )
}

/// The WGSL of a declared remap filter with a `post` section: the remap function, then
/// `fn <name>_post(c, uv, size, p) -> vec4<f32> { post }`.
pub fn generate_wgsl_post(
    name: &str,
    params_struct: &str,
    layout: &UniformBlock,
    helpers: &str,
    body: &str,
    post: &str,
) -> String {
    let remap = generate_wgsl(name, params_struct, layout, false, helpers, body);
    format!("{remap}fn {name}_post(c: vec4<f32>, uv: vec2<f32>, size: vec2<f32>, p: {params_struct}) -> vec4<f32> {{\n{post}\n}}\n")
}

/// The weighted taps' WGSL: a sum of `bilinear` samples, weights and multiples inlined.
fn taps_wgsl(name: &str, taps: &[[f32; 2]]) -> String {
    let mut s = format!("    let q = {name}(uv, size, rp.op);\n    var acc = vec4<f32>(0.0);\n");
    for [k, w] in taps {
        s += &format!("    acc += bilinear((q.xy + {k:?} * q.zw) * size - 0.5) * {w:?};\n");
    }
    s + "    return unorm_pack(acc);\n"
}

/// The kernel: `remap_pixel` makes one output pixel from the shared bilinear sampler; entry
/// points `main` (schedule `single`, the default) and `main_quads` call it per output.
pub fn kernel_source<T: RemapOp>() -> String {
    let body = if T::POST {
        format!("    let s = {name}(uv, size, rp.op) * size - 0.5;\n    return unorm_pack({name}_post(bilinear(s), uv, size, rp.op));\n", name = T::FN_NAME)
    } else if T::TAPS.is_empty() {
        format!("    let s = {name}(uv, size, rp.op) * size - 0.5;\n    return unorm_pack(bilinear(s));\n", name = T::FN_NAME)
    } else {
        taps_wgsl(T::FN_NAME, T::TAPS)
    };
    format!(
        "struct RemapParams {{\n    width: u32, height: u32, _p0: u32, _p1: u32,\n    op: {ps},\n}}\n\
         @group(0) @binding(0) var<storage, read> src: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;\n\
         @group(0) @binding(2) var<uniform> rp: RemapParams;\n\
         fn texel(x: i32, y: i32) -> vec4<f32> {{\n\
         \x20   let cx = u32(clamp(x, 0, i32(rp.width) - 1));\n\
         \x20   let cy = u32(clamp(y, 0, i32(rp.height) - 1));\n\
         \x20   return unorm_unpack(src[cy * rp.width + cx]);\n\
         }}\n\
         fn bilinear(s: vec2<f32>) -> vec4<f32> {{\n\
         \x20   let f = floor(s);\n\
         \x20   let t = s - f;\n\
         \x20   let x = i32(f.x);\n\
         \x20   let y = i32(f.y);\n\
         \x20   let top = texel(x, y) * (1.0 - t.x) + texel(x + 1, y) * t.x;\n\
         \x20   let bottom = texel(x, y + 1) * (1.0 - t.x) + texel(x + 1, y + 1) * t.x;\n\
         \x20   return top * (1.0 - t.y) + bottom * t.y;\n\
         }}\n\
         fn sample_at(q: vec2<f32>) -> vec4<f32> {{\n\
         \x20   return bilinear(q * vec2<f32>(f32(rp.width), f32(rp.height)) - 0.5);\n\
         }}\n\
         fn remap_pixel(x: u32, y: u32) -> u32 {{\n\
         \x20   let size = vec2<f32>(f32(rp.width), f32(rp.height));\n\
         \x20   let uv = (vec2<f32>(f32(x), f32(y)) + 0.5) / size;\n\
         {body}\
         }}\n\
         @compute @workgroup_size({TX}, {TY})\n\
         fn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n\
         \x20   if (g.x >= rp.width || g.y >= rp.height) {{ return; }}\n\
         \x20   let i = g.y * rp.width + g.x;\n\
         \x20   dst[i >> 2u][i & 3u] = remap_pixel(g.x, g.y);\n\
         }}\n\
         // Output buffers are allocated in 16-byte multiples: lanes past the last pixel store 0 there.\n\
         fn remap_or_zero(x: u32, y: u32) -> u32 {{\n\
         \x20   if (y >= rp.height) {{ return 0u; }}\n\
         \x20   return remap_pixel(x, y);\n\
         }}\n\
         @compute @workgroup_size({QUADS_WG})\n\
         fn main_quads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n\
         \x20   let g = linear_id(wid, nwg, lid, {QUADS_WG}u);\n\
         \x20   let first = g * 4u;\n\
         \x20   if (first >= rp.width * rp.height) {{ return; }}\n\
         \x20   let q = quad_pixels(first, rp.width);\n\
         \x20   dst[g] = vec4<u32>(remap_or_zero(q[0].x, q[0].y), remap_or_zero(q[1].x, q[1].y), remap_or_zero(q[2].x, q[2].y), remap_or_zero(q[3].x, q[3].y));\n\
         }}\n",
        ps = T::PARAMS_STRUCT,
    )
}

/// CPU driver: each output pixel sampled bilinearly (replicate edges) where `f` says:
/// `f(uv, size)` gives the position and step, and the output is the weighted sum of the
/// samples at `position + k step` for each tap `[k, weight]` (one sample at the position without
/// taps); with `post`, `post(c, uv, size, sample)` makes each output from its sampled colour `c`
/// (taps summed), `sample(q)` reading the input at normalised `q`.
pub fn map_coordinates_post<P>(
    img: &Image,
    taps: &[[f32; 2]],
    f: impl Fn([f32; 2], [f32; 2]) -> [f32; 4] + Sync,
    post: Option<P>,
) -> Result<Image>
where
    P: Fn([f32; 4], [f32; 2], [f32; 2], &dyn Fn([f32; 2]) -> [f32; 4]) -> [f32; 4] + Sync,
{
    let (w, h) = (img.width() as i64, img.height() as i64);
    let src = img.as_u8();
    let texel = |x: i64, y: i64, c: usize| {
        src[4 * (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize + c] as f32 / 255.0
    };
    let size = [w as f32, h as f32];
    let bilinear = |s: [f32; 2], c: usize| {
        let (sx, sy) = (s[0] * size[0] - 0.5, s[1] * size[1] - 0.5);
        let (fx, fy) = (sx.floor(), sy.floor());
        let (tx, ty) = (sx - fx, sy - fy);
        let (x0, y0) = (fx as i64, fy as i64);
        let top = texel(x0, y0, c) * (1.0 - tx) + texel(x0 + 1, y0, c) * tx;
        let bottom = texel(x0, y0 + 1, c) * (1.0 - tx) + texel(x0 + 1, y0 + 1, c) * tx;
        top * (1.0 - ty) + bottom * ty
    };
    let single = [[0.0, 1.0]];
    let taps = if taps.is_empty() { &single[..] } else { taps };
    let mut out = vec![0u8; src.len()];
    out.par_chunks_mut((4 * w as usize).max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for x in 0..w as usize {
                let uv = [(x as f32 + 0.5) / size[0], (y as f32 + 0.5) / size[1]];
                let q = f(uv, size);
                let mut v = [0.0f32; 4];
                for (c, vc) in v.iter_mut().enumerate() {
                    *vc = taps
                        .iter()
                        .map(|&[k, wt]| bilinear([q[0] + k * q[2], q[1] + k * q[3]], c) * wt)
                        .sum();
                }
                if let Some(post) = &post {
                    let sample = |s: [f32; 2]| {
                        [
                            bilinear(s, 0),
                            bilinear(s, 1),
                            bilinear(s, 2),
                            bilinear(s, 3),
                        ]
                    };
                    v = post(v, uv, size, &sample);
                }
                for c in 0..4 {
                    row[4 * x + c] = unorm8(v[c]);
                }
            }
        });
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Records `op` over the input into the output.
pub fn record<T: RemapOp>(
    op: &T,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (src, dst, d) = crate::filters::registry::one_to_one(T::DEF, inputs, outputs)?;
    let uniform = op.uniform().bytes_after_size(d.width, d.height);
    let (entry, groups) = match rec.schedule(T::DEF.name) {
        None | Some("single") => ("main", groups_2d(d.width, d.height, TX, TY)),
        Some("quads") => (
            "main_quads",
            groups_1d((d.width as u64 * d.height as u64).div_ceil(4), QUADS_WG),
        ),
        Some(other) => {
            return Err(crate::runtime::schedule::unknown(
                T::DEF.name,
                other,
                &["single", "quads"],
            ))
        }
    };
    let kernel = Kernel::new(
        &format!("remap.{}.{entry}", T::FN_NAME),
        &[T::wgsl(), T::kernel()],
        entry,
    );
    rec.dispatch(&kernel, &[&src.buffer, &dst.buffer], &uniform, groups)
}

/// Output description: the input's (RGBA8).
pub fn output_descs<T: RemapOp>(inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
    Ok(vec![ValueDesc::Image(expect_image(
        T::DEF,
        inputs,
        0,
        &[PixelFormat::Rgba8],
    )?)])
}

/// The CPU twin over an image.
pub fn run_cpu<T: RemapOp>(op: &T, inputs: &[&Value]) -> Result<Vec<Value>> {
    let img = input_image(T::DEF, inputs, 0)?;
    let post = T::POST.then_some(|c, uv, size, sample: &dyn Fn([f32; 2]) -> [f32; 4]| {
        op.post(c, uv, size, sample)
    });
    Ok(vec![Value::Image(map_coordinates_post(
        img,
        T::TAPS,
        |uv, size| op.source(uv, size),
        post,
    )?)])
}

/// Declares a coordinate-remap filter in one place: parameters as in `pixel_filter!`, a
/// WGSL body returning the normalised position to read from `uv` (and `size`, `p`), and a
/// CPU closure `|f, uv, size|` returning the same. See `effect/swirl.rs`. After `cpu`, an optional
/// `post_wgsl: "body of fn <name>_post(c, uv, size, p) -> vec4<f32>"` with its CPU twin
/// `post: |f, c, uv, size, sample| [..]` makes the output from the sampled colour `c` (see
/// `effect/polka_dot.rs`).
#[macro_export]
macro_rules! remap_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        $(family: $family:ident,)?
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        $(doc: $doc:expr,)?
        params: { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? },
        $(taps: $taps:expr,)?
        $(uniform: |$uf:ident| { $( $u:ident : $uty:ty = $uexpr:expr ),* $(,)? },)?
        $(tolerance: $tol:expr,)?
        $(helpers: $helpers:expr,)?
        wgsl: $wgsl:expr,
        cpu: |$cf:ident, $cuv:ident, $csize:pat_param| $cpu:expr
        $(, post_wgsl: $post_wgsl:expr, post: |$pf:ident, $pc:ident, $puv:ident, $psize:pat_param, $psample:ident| $post:expr)? $(,)?
    ) => {
        $crate::__pf_params!($(#[$meta])* $Name { $( $p : $kind = $default => $pdoc ),* });

        $crate::__pf_def! {
            $Name, $name, $crate::__pf_or!([$($crate::filters::registry::Family::$family)?] [$crate::filters::registry::Family::Effect]), $gpuimage, $summary, [$($doc)?], [],
            [$( $p : $kind $( ( $($karg),* ) )? = $default => $pdoc ),*], [],
            $crate::filters::registry::IMAGE, $crate::__pf_or!([$($tol)?] [$crate::filters::registry::EXACT_ENOUGH]), &["quads"]
        }

        impl $crate::filters::shape::remap::RemapOp for $Name {
            const DEF: &'static $crate::filters::registry::FilterDef = &DEF;
            const FN_NAME: &'static str = $name;
            const PARAMS_STRUCT: &'static str = concat!(stringify!($Name), "Params");
            const TAPS: &'static [[f32; 2]] = $crate::__pf_or!([$(&$taps)?] [&[]]);
            const POST: bool = false $(|| { let _ = $post_wgsl; true })?;
            $crate::__pf_uniform_fns!([$( |$uf| { $( $u : $uty = $uexpr ),* } )?] [$($p)*], |layout| {
                let helpers = $crate::__pf_or!([$($helpers)?] [""]);
                $(return $crate::filters::shape::remap::generate_wgsl_post($name, Self::PARAMS_STRUCT, layout, helpers, $wgsl, $post_wgsl);)?
                #[allow(unreachable_code)]
                $crate::filters::shape::remap::generate_wgsl($name, Self::PARAMS_STRUCT, layout, !Self::TAPS.is_empty(), helpers, $wgsl)
            });
            $(
            #[allow(unused_variables)]
            fn post(&self, c: [f32; 4], uv: [f32; 2], size: [f32; 2], sample: &dyn Fn([f32; 2]) -> [f32; 4]) -> [f32; 4] {
                let $pf = self;
                let $pc = c;
                let $puv = uv;
                let $psize = size;
                let $psample = sample;
                $post
            }
            )?
            fn kernel() -> &'static str {
                static SRC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
                SRC.get_or_init($crate::filters::shape::remap::kernel_source::<Self>)
            }
            #[allow(unused_variables)]
            fn source(&self, uv: [f32; 2], size: [f32; 2]) -> [f32; 4] {
                let $cf = self;
                let $cuv = uv;
                let $csize = size;
                $crate::__pf_remap_cpu!([$($taps)?] $cpu)
            }
        }

        $crate::__pf_shape_filter_impl!($Name, remap, $crate::filters::registry::Footprint::WholeImage);
    };
}

/// A remap's CPU closure result as position and step: a position alone (no taps) gets a zero step.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_remap_cpu {
    ([] $cpu:expr) => {{
        // a closure, so that a `return` in the body returns the position
        #[allow(clippy::redundant_closure_call)]
        let s: [f32; 2] = (|| $cpu)();
        [s[0], s[1], 0.0, 0.0]
    }};
    ([$($taps:tt)+] $cpu:expr) => {{
        #[allow(clippy::redundant_closure_call)]
        let s: [f32; 4] = (|| $cpu)();
        s
    }};
}
