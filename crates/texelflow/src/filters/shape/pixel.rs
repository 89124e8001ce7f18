//! The per-pixel shape (GPUImage3's `BasicOperation`): a filter is a WGSL body computing one
//! RGBA colour from `c: vec4<f32>` (and, when it asks, `at: PixelAt`, the pixel's position and
//! the image size) with its parameters in `p`, plus an independent CPU closure. The two-input
//! form (blends, GPUImage's `GPUImageTwoInputFilter`) also gets `t`, the second image's pixel;
//! the three-input form (`blend_with_mask`) also `m`, the mask's pixel. The
//! `pixel_filter!` declaration generates the typed struct, its checked constructor, `Default`,
//! the uniform block and its WGSL struct, the `FilterDef` and this trait's impl; the executor
//! generates the kernel around the body and fuses runs of per-pixel filters into one kernel
//! (`graph::fuse`).

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{expect_image, input_image, Filter, FilterDef, PixelOpGpu};
use crate::image::{unorm16, unorm8, Image, PixelFormat};
pub use crate::region::PixelWindow;
use crate::runtime::uniform::UniformBlock;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// Where a pixel is: its column and row, and the image size. WGSL has the same struct
/// (`common.wgsl`), with `at_uv(at)` for GPUImage's normalised texture coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelAt {
    /// Column in the whole image.
    pub x: u32,
    /// Row in the whole image.
    pub y: u32,
    /// Width of the whole image.
    pub width: u32,
    /// Height of the whole image.
    pub height: u32,
}

/// The position of pixel (x, y) of a `w` x `h` image, in the window set by `with_window`.
fn placer(w: u32, h: u32) -> impl Fn(u32, u32) -> PixelAt + Sync {
    let win = crate::region::current_window().unwrap_or(PixelWindow {
        x0: 0,
        y0: 0,
        width: w,
        height: h,
    });
    move |x, y| PixelAt {
        x: win.x0 + x,
        y: win.y0 + y,
        width: win.width,
        height: win.height,
    }
}

impl PixelAt {
    /// The pixel centre in [0, 1]², as GPUImage's `textureCoordinate`; computed as the WGSL
    /// `at_uv` does (f32, one division per axis).
    pub fn uv(&self) -> [f32; 2] {
        [
            (self.x as f32 + 0.5) / self.width as f32,
            (self.y as f32 + 0.5) / self.height as f32,
        ]
    }
}

/// A per-pixel filter on RGBA8 or RGBA16 images (`PIXEL_FORMATS`); implemented by `pixel_filter!`.
pub trait PixelOp: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// The filter's registry entry.
    const DEF: &'static FilterDef;
    /// WGSL function name (the filter name).
    const FN_NAME: &'static str;
    /// WGSL parameter struct name.
    const PARAMS_STRUCT: &'static str;
    /// The WGSL function also takes `at: PixelAt`.
    const POSITION: bool = false;
    /// 2 for blends: a second image of the same size, its pixel `t` beside `c`; 3 with a
    /// mask image too, its pixel `m` after `t`.
    const INPUTS: u32 = 1;
    /// True when every output channel is a function of the same input channel alone (the
    /// functions may differ per channel, e.g. alpha copied): on 8-bit input the function is
    /// then a 256-entry table, and the `table` schedule builds and looks up that table
    /// instead of evaluating the function per pixel (see `graph::fuse`).
    const PER_CHANNEL: bool = false;
    /// With `PER_CHANNEL`: the default schedule is `table` rather than `pixel`.
    const TABLE_BY_DEFAULT: bool = false;
    /// The parameter block uploaded for this instance.
    fn uniform(&self) -> UniformBlock;
    /// The parameter struct and the function, generated once (with `body_by_reference`, the
    /// struct and helpers only).
    fn wgsl() -> &'static str;
    /// The function's body, for the executor to wrap per use as `fn <name>_op<i>(c[, at])`
    /// with `let p = &chain.op<i>;`, a pointer to the op's block in the kernel's uniform,
    /// instead of `p` passed by value. For blocks indexed at run time (a table): WGSL cannot
    /// index an array value in place, so naga spills the copy to per-invocation memory on
    /// every call, which lavapipe took minutes to compile for `tone_curve`'s 1 KiB table.
    fn body_by_reference() -> Option<&'static str> {
        None
    }
    /// CPU twin of the WGSL function, on [0,1] RGBA.
    fn apply(&self, c: [f32; 4], at: PixelAt) -> [f32; 4];
    /// CPU twin of a two-input op; `t` is the second image's pixel.
    fn apply2(&self, c: [f32; 4], _t: [f32; 4], at: PixelAt) -> [f32; 4] {
        self.apply(c, at)
    }
    /// CPU twin of a three-input op; `m` is the mask's pixel.
    fn apply3(&self, c: [f32; 4], t: [f32; 4], _m: [f32; 4], at: PixelAt) -> [f32; 4] {
        self.apply2(c, t, at)
    }
}

/// The WGSL of a declared filter: helpers, its parameter struct (from `layout`, so it cannot
/// disagree with the bytes) and `fn name(c, p[, at]) -> vec4<f32> { body }`.
pub fn generate_wgsl(
    name: &str,
    params_struct: &str,
    layout: &UniformBlock,
    inputs: u32,
    position: bool,
    helpers: &str,
    body: &str,
) -> String {
    let at = if position { ", at: PixelAt" } else { "" };
    let t = extra_args(inputs);
    declared_wgsl(
        name,
        params_struct,
        layout,
        &format!("c: vec4<f32>{t}, "),
        at,
        "vec4<f32>",
        helpers,
        body,
    )
}

pub use crate::graph::fuse::extra_args;

/// The WGSL of any declared filter: its helpers, its parameter struct (from `layout`, so it
/// cannot disagree with the bytes) and `fn name(<before>p: <struct><after>) -> <ret> { body }`.
#[allow(clippy::too_many_arguments)]
pub fn declared_wgsl(
    name: &str,
    params_struct: &str,
    layout: &UniformBlock,
    before: &str,
    after: &str,
    ret: &str,
    helpers: &str,
    body: &str,
) -> String {
    format!(
        "{helpers}\n{}fn {name}({before}p: {params_struct}{after}) -> {ret} {{\n{body}\n}}\n",
        layout.wgsl_struct(params_struct)
    )
}

/// The formats per-pixel filters take (a blend's second image in the first's format).
pub const PIXEL_FORMATS: &[PixelFormat] = &[PixelFormat::Rgba8, PixelFormat::Rgba16];

/// Runs a per-pixel function over an RGBA8 or RGBA16 image (and, for blends, the same pixel
/// of a second one of the same format) on the CPU, quantising like `pack4x8unorm` or
/// `pack2x16unorm`.
pub fn map_pixels(
    img: &Image,
    second: Option<&Image>,
    f: impl Fn([f32; 4], [f32; 4], PixelAt) -> [f32; 4] + Sync,
) -> Result<Image> {
    map_pixels3(img, second, None, |c, t, _, at| f(c, t, at))
}

/// `map_pixels` with a third image too (a mask), its pixel the function's third argument.
pub fn map_pixels3(
    img: &Image,
    second: Option<&Image>,
    third: Option<&Image>,
    f: impl Fn([f32; 4], [f32; 4], [f32; 4], PixelAt) -> [f32; 4] + Sync,
) -> Result<Image> {
    for (what, other) in [("second image", second), ("mask", third)] {
        let Some(s) = other else { continue };
        if s.format() != img.format() {
            return Err(crate::Error::invalid(format!(
                "{what} is {}, the first {}",
                s.format().name(),
                img.format().name()
            )));
        }
        if (s.width(), s.height()) != (img.width(), img.height()) {
            return Err(crate::Error::invalid(format!(
                "{what} is {}x{}, the first {}x{}",
                s.width(),
                s.height(),
                img.width(),
                img.height()
            )));
        }
    }
    match img.format() {
        PixelFormat::Rgba8 => {}
        PixelFormat::Rgba16 => return map_pixels16(img, second, third, f),
        other => {
            return Err(crate::Error::unsupported(format!(
                "per-pixel filters take rgba8 or rgba16, got {}",
                other.name()
            )))
        }
    }
    let (w, h) = (img.width(), img.height());
    let src = img.as_u8();
    // absent images read as the first (their pixels are then ignored)
    let other = second.map_or(src, |s| s.as_u8());
    let mask = third.map_or(src, |s| s.as_u8());
    let mut out = vec![0u8; src.len()];
    let row = (4 * w as usize).max(1);
    let place = placer(w, h);
    let unit = |p: &[u8]| {
        [
            p[0] as f32 / 255.0,
            p[1] as f32 / 255.0,
            p[2] as f32 / 255.0,
            p[3] as f32 / 255.0,
        ]
    };
    out.par_chunks_mut(row)
        .zip(
            src.par_chunks(row)
                .zip(other.par_chunks(row).zip(mask.par_chunks(row))),
        )
        .enumerate()
        .for_each(|(y, (o, (s, (t, m))))| {
            for (x, (op, (sp, (tp, mp)))) in o
                .chunks_exact_mut(4)
                .zip(
                    s.chunks_exact(4)
                        .zip(t.chunks_exact(4).zip(m.chunks_exact(4))),
                )
                .enumerate()
            {
                let c = f(unit(sp), unit(tp), unit(mp), place(x as u32, y as u32));
                for k in 0..4 {
                    op[k] = unorm8(c[k]);
                }
            }
        });
    Image::from_u8(w, h, PixelFormat::Rgba8, out)
}

/// `map_pixels3` at 16 bits: samples read as `v / 65535`, results rounded like `pack2x16unorm`.
fn map_pixels16(
    img: &Image,
    second: Option<&Image>,
    third: Option<&Image>,
    f: impl Fn([f32; 4], [f32; 4], [f32; 4], PixelAt) -> [f32; 4] + Sync,
) -> Result<Image> {
    let (w, h) = (img.width(), img.height());
    let src = img.as_u16();
    let other = second.map_or(src, |s| s.as_u16());
    let mask = third.map_or(src, |s| s.as_u16());
    let mut out = vec![0u16; src.len()];
    let row = (4 * w as usize).max(1);
    let place = placer(w, h);
    let unit = |p: &[u16]| {
        [
            p[0] as f32 / 65535.0,
            p[1] as f32 / 65535.0,
            p[2] as f32 / 65535.0,
            p[3] as f32 / 65535.0,
        ]
    };
    out.par_chunks_mut(row)
        .zip(
            src.par_chunks(row)
                .zip(other.par_chunks(row).zip(mask.par_chunks(row))),
        )
        .enumerate()
        .for_each(|(y, (o, (s, (t, m))))| {
            for (x, (op, (sp, (tp, mp)))) in o
                .chunks_exact_mut(4)
                .zip(
                    s.chunks_exact(4)
                        .zip(t.chunks_exact(4).zip(m.chunks_exact(4))),
                )
                .enumerate()
            {
                let c = f(unit(sp), unit(tp), unit(mp), place(x as u32, y as u32));
                for k in 0..4 {
                    op[k] = unorm16(c[k]);
                }
            }
        });
    Image::from_u16(w, h, out)
}

impl<T: PixelOp> Filter for T {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Pixel
    }
    fn def(&self) -> &'static FilterDef {
        T::DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(T::DEF, inputs, 0, PIXEL_FORMATS)?;
        for k in 1..T::INPUTS as usize {
            // extra images in the first's format: the fused kernel reads them all one way
            let e = expect_image(T::DEF, inputs, k, &[d.format])?;
            if (d.width, d.height) != (e.width, e.height) {
                return Err(crate::Error::invalid(format!(
                    "`{}`: the {} is {}x{}, the input {}x{}; give both the same size, or fit=stretch|fill|fit|center",
                    T::DEF.name,
                    if k == 1 { "second image" } else { "mask" },
                    e.width,
                    e.height,
                    d.width,
                    d.height
                )));
            }
        }
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(T::DEF, inputs, 0)?;
        let out = if T::INPUTS == 3 {
            map_pixels3(
                img,
                Some(input_image(T::DEF, inputs, 1)?),
                Some(input_image(T::DEF, inputs, 2)?),
                |c, t, m, at| self.apply3(c, t, m, at),
            )?
        } else if T::INPUTS == 2 {
            map_pixels(img, Some(input_image(T::DEF, inputs, 1)?), |c, t, at| {
                self.apply2(c, t, at)
            })?
        } else {
            map_pixels(img, None, |c, _, at| self.apply(c, at))?
        };
        Ok(vec![Value::Image(out)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (Some(src), Some(dst)) = (inputs.first(), outputs.first()) else {
            return Err(crate::Error::invalid(format!(
                "`{}` needs an input and an output",
                T::DEF.name
            )));
        };
        if inputs.len() != T::INPUTS as usize {
            return Err(crate::Error::invalid(format!(
                "`{}` needs {} inputs, got {}",
                T::DEF.name,
                T::INPUTS,
                inputs.len()
            )));
        }
        crate::graph::fuse::record_fused(rec, &[self.gpu_op()], src, &inputs[1..], dst)
    }
    fn pixel_op(&self) -> Option<PixelOpGpu> {
        Some(self.gpu_op())
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// The GPU side of a per-pixel op.
trait GpuOp {
    fn gpu_op(&self) -> PixelOpGpu;
}

impl<T: PixelOp> GpuOp for T {
    fn gpu_op(&self) -> PixelOpGpu {
        let block = self.uniform();
        PixelOpGpu {
            fn_name: T::FN_NAME.into(),
            params_struct: T::PARAMS_STRUCT.into(),
            wgsl: T::wgsl().into(),
            uniform: block.bytes(),
            fields: block.fields,
            position: T::POSITION,
            inputs: T::INPUTS,
            per_channel: T::PER_CHANNEL,
            table_by_default: T::TABLE_BY_DEFAULT,
            body_by_reference: T::body_by_reference(),
        }
    }
}

/// Declares a per-pixel filter in one place. Parameter kinds: `float(min, max)`,
/// `int(min, max)`, `uint(min, max)`, `bool`, `choice("a", "b", ..)` (stored as the option's index), `rgb`,
/// `rgba` (colours in [0, 1]), `point` (normalised x, y in [0, 1]), `vec2/vec3/vec4(min, max)`,
/// `mat4(min, max)` (16 numbers, row-major as written; the WGSL side gets what `uniform`
/// makes of it). By default
/// the uniform block is the parameters in order; `uniform: |f| { name: type = expr, .. }`
/// derives it instead (a factor computed once, a folded matrix). See `color/brightness.rs`.
/// Two-input filters (blends) add `with: "doc of the second image",` (a required `with=PATH`
/// parameter, the `with` input port), give `family: Blend,` and write `cpu2: |f, c, t, at|`
/// with `t` the second image's pixel; their WGSL body reads `t` too. See `blend/multiply_blend.rs`.
/// Three-input filters add `mask: "doc",` after `with:` (a required `mask=PATH`, the `mask`
/// port) and write `cpu3: |f, c, t, m, at|`; their WGSL body reads `m`, the mask's pixel,
/// too. See `blend/blend_with_mask.rs`.
#[macro_export]
macro_rules! pixel_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        $(family: $family:ident,)?
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        $(doc: $doc:expr,)?
        $(with: $with_doc:literal,)?
        $(mask: $mask_doc:literal,)?
        params: { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? },
        $(uniform: |$uf:ident| { $( $u:ident : $uty:ty = $uexpr:expr ),* $(,)? },)?
        $(position: $position:literal,)?
        $(per_channel: $per_channel:literal,)?
        $(table_by_default: $tbd:literal,)?
        $(tolerance: $tol:expr,)?
        $(schedules: $sched:expr,)?
        $(helpers: $helpers:expr,)?
        wgsl: $wgsl:expr,
        $(cpu: |$cf:ident, $cc:ident, $cat:pat_param| $cpu:expr,)?
        $(cpu2: |$bf:ident, $bc:ident, $bt:ident, $bat:pat_param| $cpu2:expr,)?
        $(cpu3: |$mf:ident, $mc:ident, $mt:ident, $mm:ident, $mat:pat_param| $cpu3:expr,)?
    ) => {
        $crate::__pf_params!($(#[$meta])* $Name { $( $p : $kind = $default => $pdoc ),* });

        $crate::__pf_def! {
            $Name, $name, $crate::__pf_or!([$($crate::filters::registry::Family::$family)?] [$crate::filters::registry::Family::Color]), $gpuimage, $summary, [$($doc)?], [$($crate::graph::params::ParamDef::image("with", $with_doc),)? $($crate::graph::params::ParamDef::image("mask", $mask_doc),)?],
            [$( $p : $kind $( ( $($karg),* ) )? = $default => $pdoc ),*], [$( $crate::__pf_second!(@fit $with_doc), )?],
            $crate::__pf_or!([$( $crate::__pf_second!(@ports3 $mask_doc) )?] [$crate::__pf_or!([$( $crate::__pf_second!($with_doc) )?] [$crate::filters::registry::IMAGE])]), $crate::__pf_or!([$($tol)?] [$crate::filters::registry::EXACT_ENOUGH]), $crate::__pf_or!([$($sched)?] [&[]])
        }

        impl $crate::filters::shape::pixel::PixelOp for $Name {
            const DEF: &'static $crate::filters::registry::FilterDef = &DEF;
            const FN_NAME: &'static str = $name;
            const PARAMS_STRUCT: &'static str = concat!(stringify!($Name), "Params");
            const POSITION: bool = false $(|| $position)?;
            const INPUTS: u32 = 1 $(+ $crate::__pf_second!(@count $with_doc))? $(+ $crate::__pf_second!(@count $mask_doc))?;
            const PER_CHANNEL: bool = false $(|| $per_channel)?;
            const TABLE_BY_DEFAULT: bool = false $(|| $tbd)?;
            $crate::__pf_uniform_fns!([$( |$uf| { $( $u : $uty = $uexpr ),* } )?] [$($p)*], |layout| {
                $crate::filters::shape::pixel::generate_wgsl($name, Self::PARAMS_STRUCT, layout, Self::INPUTS, Self::POSITION, $crate::__pf_or!([$($helpers)?] [""]), $wgsl)
            });
            #[allow(unused_variables, unreachable_code)]
            fn apply(&self, c: [f32; 4], at: $crate::filters::shape::pixel::PixelAt) -> [f32; 4] {
                $( let $cf = self; let $cc = c; let $cat = at; return $cpu; )?
                c
            }
            #[allow(unused_variables, unreachable_code)]
            fn apply2(&self, c: [f32; 4], t: [f32; 4], at: $crate::filters::shape::pixel::PixelAt) -> [f32; 4] {
                $( let $bf = self; let $bc = c; let $bt = t; let $bat = at; return $cpu2; )?
                self.apply(c, at)
            }
            #[allow(unused_variables, unreachable_code)]
            fn apply3(&self, c: [f32; 4], t: [f32; 4], m: [f32; 4], at: $crate::filters::shape::pixel::PixelAt) -> [f32; 4] {
                $( let $mf = self; let $mc = c; let $mt = t; let $mm = m; let $mat = at; return $cpu3; )?
                $crate::filters::shape::pixel::PixelOp::apply2(self, c, t, at)
            }
        }
    };
}

/// `pixel_filter!`'s parameter kinds: Rust type, declaration, argument getter, check, default.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_param {
    (ty float) => { f32 };
    (ty int) => { i32 };
    (ty uint) => { u32 };
    (ty bool) => { bool };
    (ty choice) => { u32 };
    (ty rgb) => { [f32; 3] };
    (ty rgba) => { [f32; 4] };
    (ty point) => { [f32; 2] };
    (ty mat4) => { [f32; 16] };
    (ty mat3) => { [f32; 9] };
    (ty vec2) => { [f32; 2] };
    (ty vec3) => { [f32; 3] };
    (ty vec4) => { [f32; 4] };

    (def float $p:ident, $d:expr, $doc:literal, $min:expr, $max:expr) => { $crate::graph::params::ParamDef::float(stringify!($p), $d, $min, $max, $doc) };
    (def int $p:ident, $d:expr, $doc:literal, $min:expr, $max:expr) => { $crate::graph::params::ParamDef::int(stringify!($p), $d, $min, $max, $doc) };
    (def uint $p:ident, $d:expr, $doc:literal, $min:expr, $max:expr) => { $crate::graph::params::ParamDef::int(stringify!($p), $d, $min, $max, $doc) };
    (def bool $p:ident, $d:expr, $doc:literal) => { $crate::graph::params::ParamDef::boolean(stringify!($p), $d, $doc) };
    (def choice $p:ident, $d:expr, $doc:literal, $($opt:expr),+) => { $crate::graph::params::ParamDef::choice(stringify!($p), $d, &[$($opt),+], $doc) };
    (def rgb $p:ident, $d:expr, $doc:literal) => { $crate::graph::params::ParamDef::floats(stringify!($p), &$d, 0.0, 1.0, $doc) };
    (def rgba $p:ident, $d:expr, $doc:literal) => { $crate::graph::params::ParamDef::floats(stringify!($p), &$d, 0.0, 1.0, $doc) };
    (def point $p:ident, $d:expr, $doc:literal) => { $crate::graph::params::ParamDef::floats(stringify!($p), &$d, 0.0, 1.0, $doc) };
    (def $arr:ident $p:ident, $d:expr, $doc:literal, $min:expr, $max:expr) => { $crate::graph::params::ParamDef::floats(stringify!($p), &$d, $min, $max, $doc) };

    (get float $a:ident, $p:ident, $def:ident) => { $a.f32(stringify!($p))? };
    (get int $a:ident, $p:ident, $def:ident) => { $a.i32(stringify!($p))? };
    (get uint $a:ident, $p:ident, $def:ident) => { $a.u32(stringify!($p))? };
    (get bool $a:ident, $p:ident, $def:ident) => { $a.bool(stringify!($p))? };
    (get choice $a:ident, $p:ident, $def:ident) => { $crate::graph::params::choice_index(&$def, stringify!($p), $a.choice(stringify!($p))?)? };
    (get $arr:ident $a:ident, $p:ident, $def:ident) => { $crate::graph::params::float_array(&$def, stringify!($p), &$a.floats(stringify!($p))?)? };

    (raw float $v:ident, $def:ident) => { $crate::graph::params::RawValue::Number($v as f64) };
    (raw int $v:ident, $def:ident) => { $crate::graph::params::RawValue::Number($v as f64) };
    (raw uint $v:ident, $def:ident) => { $crate::graph::params::RawValue::Number($v as f64) };
    (raw bool $v:ident, $def:ident) => { $crate::graph::params::RawValue::Text(if $v { "true" } else { "false" }.into()) };
    (raw choice $v:ident, $def:ident) => { $crate::graph::params::choice_raw(&$def, stringify!($v), $v) };
    (raw $arr:ident $v:ident, $def:ident) => { $crate::graph::params::RawValue::List($v.iter().map(|&x| x as f64).collect()) };

    (default choice $d:expr, $def:ident, $p:ident) => { $crate::graph::params::choice_index(&$def, stringify!($p), $d).unwrap_or(0) };
    (default $kind:ident $d:expr, $def:ident, $p:ident) => { $d };
}

/// A declared filter's struct (a unit struct when it has no parameters), its checked `new`
/// and its `Default` from the declared defaults; every shape's macro starts with it.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_params {
    ($(#[$meta:meta])* $Name:ident { $( $p:ident : $kind:ident = $default:expr => $pdoc:literal ),* }) => {
        $crate::__pf_struct!($(#[$meta])* $Name { $( $p : $kind => $pdoc ),* });

        impl $Name {
            /// Fails when a parameter is outside its declared range.
            #[allow(clippy::too_many_arguments)]
            pub fn new($( $p: $crate::__pf_param!(ty $kind) ),*) -> $crate::Result<Self> {
                $( $crate::graph::params::check_value(&DEF, stringify!($p), $crate::__pf_param!(raw $kind $p, DEF))?; )*
                Ok(Self { $( $p ),* })
            }
        }

        impl Default for $Name {
            fn default() -> Self {
                Self { $( $p: $crate::__pf_param!(default $kind $default, DEF, $p) ),* }
            }
        }
    };
}

/// A declared filter's registry entry, `DEF`; every shape's macro ends its declaration with it.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_def {
    (
        $Name:ident, $name:literal, $family:expr, $gpuimage:literal, $summary:literal, [$($doc:expr)?], [$($pre:tt)*],
        [$( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),*], [$($post:tt)*],
        $inputs:expr, $tol:expr, $sched:expr $(, wrap: $wrap:path)? $(, outputs: $outputs:expr)? $(, uniforms: $uniforms:expr)?
    ) => {
        /// The filter's registry entry.
        pub static DEF: $crate::filters::registry::FilterDef = $crate::filters::registry::FilterDef {
            name: $name,
            family: $family,
            summary: $summary,
            doc: $crate::__pf_or!([$($doc)?] [""]),
            gpuimage: $gpuimage,
            params: &[ $($pre)* $( $crate::__pf_param!(def $kind $p, $default, $pdoc $(, $($karg),*)?), )* $($post)* ],
            inputs: $inputs,
            outputs: $crate::__pf_or!([$($outputs)?] [$crate::filters::registry::IMAGE]),
            tolerance: $tol,
            #[allow(unused_variables)]
            build: |a| {
                let f: Box<dyn $crate::filters::registry::Filter> = Box::new($Name::new($( $crate::__pf_param!(get $kind a, $p, DEF) ),*)?);
                $crate::__pf_or!([$( $wrap(f, a) )?] [Ok(f)])
            },
            uniforms: $crate::__pf_or!([$($uniforms)?] [&[]]),
            test_inputs: None,
            schedules: $sched,
        };
    };
}

/// The filter's struct: a unit struct when it has no parameters.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_struct {
    ($(#[$meta:meta])* $Name:ident {}) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $Name;
    };
    ($(#[$meta:meta])* $Name:ident { $( $p:ident : $kind:ident => $pdoc:literal ),+ }) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $Name {
            $( #[doc = $pdoc] pub $p: $crate::__pf_param!(ty $kind), )+
        }
    };
}

/// The `uniform` and `wgsl` methods of a declared filter's op trait: the block from
/// `__pf_uniform!`, and the parameter struct plus function `$generate` makes of its layout,
/// generated once.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_uniform_fns {
    ([$($uniform:tt)*] [$($p:ident)*], |$layout:ident| $generate:expr) => {
        fn uniform(&self) -> $crate::runtime::uniform::UniformBlock {
            $crate::__pf_uniform!(self, [$($uniform)*] [$($p)*])
        }
        fn wgsl() -> &'static str {
            static SRC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
            SRC.get_or_init(|| {
                let block = <Self as Default>::default().uniform();
                let $layout = &block;
                $generate
            })
        }
    };
}

/// `pixel_filter!`'s uniform block: derived fields when declared, else the parameters.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_uniform {
    ($s:ident, [] [$($p:ident)*]) => {
        $crate::runtime::uniform::UniformBlock::new() $( .field(stringify!($p), &$s.$p) )*
    };
    ($s:ident, [|$uf:ident| { $( $u:ident : $uty:ty = $uexpr:expr ),* }] [$($p:ident)*]) => {{
        let $uf = $s;
        $crate::runtime::uniform::UniformBlock::new() $( .field(stringify!($u), &{ let v: $uty = $uexpr; v }) )*
    }};
}

/// Two-input filters: their input ports, and 1 more input (a mask: 1 more again, and three ports).
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_second {
    (@count $doc:literal) => {
        1
    };
    (@ports3 $doc:literal) => {
        $crate::filters::registry::THREE_IMAGES
    };
    (@fit $doc:literal) => {
        $crate::graph::params::ParamDef::choice(
            "fit",
            "none",
            $crate::graph::params::FIT_OPTIONS,
            $crate::graph::params::FIT_DOC,
        )
    };
    ($doc:literal) => {
        $crate::filters::registry::TWO_IMAGES
    };
}

/// The given tokens, or the fallback when none are given.
#[doc(hidden)]
#[macro_export]
macro_rules! __pf_or {
    ([] [$($d:tt)*]) => { $($d)* };
    ([$($v:tt)+] [$($d:tt)*]) => { $($v)+ };
}

/// Small helpers for CPU twins, written from the formulas (not from the WGSL helpers of the
/// same names in `common.wgsl`).
pub mod twin {
    /// GPUImage's luminance weights.
    pub fn luma(c: [f32; 4]) -> f32 {
        crate::image::luminance(&c)
    }
    /// `x^g` with 0^0 = 1 and 0^g = 0 (what the WGSL `spow` pins).
    pub fn spow(x: f32, g: f32) -> f32 {
        if x <= 0.0 {
            if g == 0.0 {
                1.0
            } else {
                0.0
            }
        } else {
            x.powf(g)
        }
    }
    /// `a (1 - t) + b t`.
    pub fn mix(a: f32, b: f32, t: f32) -> f32 {
        a * (1.0 - t) + b * t
    }
    /// Overlay blend of `base` with `blend`, one channel.
    pub fn overlay(base: f32, blend: f32) -> f32 {
        if base < 0.5 {
            2.0 * base * blend
        } else {
            1.0 - 2.0 * (1.0 - base) * (1.0 - blend)
        }
    }
    /// GLSL `smoothstep`, a step where the edges meet.
    pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
        let t = ((x - e0) / (e1 - e0).max(1e-6)).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    }
}
