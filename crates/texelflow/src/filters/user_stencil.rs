//! Stencil kernels of your own at run time: a WGSL function of a pixel's 3x3 or 5x5
//! neighbourhood, given inline or as a file, with named `f32` parameters
//! (`stencil_kernel(file=edge.wgsl, radius=1, gain=2)` in a spec, [`UserStencil`] in Rust).
//! The source handling (parsing and validation with `origin:line:column`, the per-source
//! `user<N>_` names, `Params`) is `pixel_kernel`'s (`filters::user_kernel`).
//!
//! The contract: the source declares
//!
//! ```wgsl
//! struct Params { gain: f32, }                                    // f32 fields only; optional
//! fn kernel(n: array<vec4<f32>, 9>, p: Params) -> vec4<f32> {      // or without `p`
//!     return vec4<f32>((n[4].rgb - n[1].rgb) * p.gain + vec3<f32>(0.5), n[4].a);
//! }
//! ```
//!
//! `n` is the neighbourhood of radius r (`radius=1`: 9 entries, 3x3; `radius=2`: 25, 5x5) in
//! row-major order, entry `(dy + r) * (2r + 1) + (dx + r)` for the pixel at offset (dx, dy),
//! so `n[4]` (`n[12]` for 5x5) is the pixel itself; each is straight RGBA in [0, 1]; past
//! the image's edges the edge pixels are repeated (clamped coordinates, as the built-in
//! stencils' default border). The result is clamped and quantised to the image's format
//! (RGBA8, or Gray8, whose bytes v are presented as (v, v, v, 1) and keep the red channel of
//! the result). An array of the other length is an error when the kernel is made.
//!
//! On the GPU each invocation loads its neighbourhood from the input buffer and calls the
//! function; the kernel does not fuse with per-pixel filters (no stencil does), and its
//! footprint is its radius, so pipelines with it run in tiles. On the CPU it needs a twin:
//! [`UserStencil::with_cpu`]; without one, running it on the CPU is an error.

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, Footprint, EXACT_ENOUGH,
    IMAGE,
};
use crate::filters::shape::stencil::map_windows;
use crate::filters::user_kernel::{block_bytes, read_source, source, Compiled, Shape};
use crate::graph::params::{Args, ParamDef};
use crate::image::PixelFormat;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// A CPU twin of a user stencil: the neighbourhood (row-major, RGBA in [0, 1]) and the
/// `Params` values in the order the struct declares them, to the new RGBA (clamped and
/// quantised after).
pub type StencilTwin = Arc<dyn Fn(&[[f32; 4]], &[f32]) -> [f32; 4] + Send + Sync>;

/// The formats a user stencil takes (those of the built-in stencils).
const FORMATS: &[PixelFormat] = &[PixelFormat::Rgba8, PixelFormat::Gray8];

/// The workgroup of the generated kernels.
const WX: u32 = 16;
const WY: u32 = 16;

/// The kernel of a spec's `stencil_kernel` without `file` or `code`: the identity.
fn identity(radius: u32) -> String {
    let k = 2 * radius + 1;
    format!(
        "fn kernel(n: array<vec4<f32>, {}>) -> vec4<f32> {{\n    return n[{}];\n}}\n",
        k * k,
        k * k / 2
    )
}

/// A stencil kernel written in WGSL at run time (see the module's docs for the contract),
/// with its radius, parameter values and, optionally, a CPU twin.
///
/// ```no_run
/// # fn main() -> texelflow::Result<()> {
/// let blur = texelflow::UserStencil::new(
///     "fn kernel(n: array<vec4<f32>, 9>) -> vec4<f32> {\n\
///          var s = vec4<f32>(0.0);\n\
///          for (var i = 0; i < 9; i++) { s += n[i]; }\n\
///          return s / 9.0;\n\
///      }",
///     1,
///     &[],
/// )?
/// .with_cpu(|n, _| {
///     let mut s = [0.0f32; 4];
///     for px in n { for c in 0..4 { s[c] += px[c] / 9.0; } }
///     s
/// });
/// let pipeline = texelflow::Pipeline::new().then(blur);
/// # let _ = pipeline; Ok(()) }
/// ```
#[derive(Clone)]
pub struct UserStencil {
    compiled: Arc<Compiled>,
    radius: u32,
    values: Vec<f32>,
    cpu: Option<StencilTwin>,
}

impl std::fmt::Debug for UserStencil {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserStencil")
            .field("fn_name", &self.compiled.fn_name)
            .field("radius", &self.radius)
            .field("params", &self.compiled.params)
            .field("values", &self.values)
            .field("cpu", &self.cpu.is_some())
            .finish()
    }
}

impl UserStencil {
    /// A stencil of `radius` (1: 3x3, 2: 5x5) from WGSL source given inline (named `code` in
    /// messages), its `Params` fields set from `params` by name.
    pub fn new(code: &str, radius: u32, params: &[(&str, f32)]) -> Result<Self> {
        Self::from_source("code", code, radius, params)
    }

    /// A stencil from WGSL source, `origin` naming it in messages (`origin:line:column`).
    pub fn from_source(
        origin: &str,
        code: &str,
        radius: u32,
        params: &[(&str, f32)],
    ) -> Result<Self> {
        if !(1..=2).contains(&radius) {
            return Err(Error::StencilKernel(format!(
                "radius is {radius}: it must be 1 (3x3) or 2 (5x5)"
            )));
        }
        let (compiled, values) = source(Shape::Stencil(radius), origin, code, params)?;
        Ok(Self {
            compiled,
            radius,
            values,
            cpu: None,
        })
    }

    /// A stencil from a `.wgsl` file (a regular file of at most
    /// `user_kernel::MAX_SOURCE_BYTES`).
    pub fn from_file(path: impl AsRef<Path>, radius: u32, params: &[(&str, f32)]) -> Result<Self> {
        let (shown, code) = read_source(Shape::Stencil(radius), path.as_ref())?;
        Self::from_source(&shown, &code, radius, params)
    }

    /// The same stencil with a CPU twin, for the CPU reference (`Backend::Cpu`): `f` gets the
    /// neighbourhood as the WGSL's `n` and the `Params` values in the struct's order.
    pub fn with_cpu(
        mut self,
        f: impl Fn(&[[f32; 4]], &[f32]) -> [f32; 4] + Send + Sync + 'static,
    ) -> Self {
        self.cpu = Some(Arc::new(f));
        self
    }

    /// The same stencil with a CPU twin already shared (`with_cpu`).
    pub fn with_cpu_twin(mut self, twin: StencilTwin) -> Self {
        self.cpu = Some(twin);
        self
    }

    /// The radius: 1 (3x3) or 2 (5x5).
    pub fn radius(&self) -> u32 {
        self.radius
    }

    /// `Params`' fields, in the struct's order.
    pub fn params(&self) -> &[String] {
        &self.compiled.params
    }

    /// The parameter values, in the struct's order.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// The wrapper the generated kernel calls (`user<N>op`), unique to the source text.
    pub fn fn_name(&self) -> &str {
        &self.compiled.fn_name
    }

    /// The compute kernel around the source: one invocation per pixel (RGBA8) or per word
    /// of 4 pixels (Gray8), each loading its neighbourhood with clamped coordinates.
    fn kernel_source(&self, gray: bool) -> String {
        let r = self.radius as i32;
        let k = 2 * r + 1;
        let mut loads = String::new();
        for dy in -r..=r {
            for dx in -r..=r {
                loads += &format!(
                    "    n[{}] = ustencil_px(x + {dx}, y + {dy});\n",
                    (dy + r) * k + dx + r
                );
            }
        }
        let px = if gray {
            "let g = f32((src[u32(cy) * sp.words + u32(cx) / 4u] >> (8u * (u32(cx) % 4u))) & 255u) / 255.0;\n    return vec4<f32>(g, g, g, 1.0);"
        } else {
            "return unorm_unpack(src[u32(cy) * sp.width + u32(cx)]);"
        };
        let main = if gray {
            format!(
                "    let xw = gid.x;\n\
                 \x20   if (xw >= sp.words || gid.y >= sp.height) {{ return; }}\n\
                 \x20   let y = i32(gid.y);\n\
                 \x20   var word = 0u;\n\
                 \x20   for (var j = 0u; j < 4u; j++) {{\n\
                 \x20   if (xw * 4u + j >= sp.width) {{ break; }}\n\
                 \x20   let x = i32(xw * 4u + j);\n\
                 \x20   var n: array<vec4<f32>, {kk}>;\n{loads}\
                 \x20   word |= (unorm_pack({f}(n, sp.op)) & 255u) << (8u * j);\n\
                 \x20   }}\n\
                 \x20   dst[gid.y * sp.words + xw] = word;\n",
                kk = k * k,
                f = self.compiled.fn_name,
            )
        } else {
            format!(
                "    if (gid.x >= sp.width || gid.y >= sp.height) {{ return; }}\n\
                 \x20   let x = i32(gid.x);\n\
                 \x20   let y = i32(gid.y);\n\
                 \x20   var n: array<vec4<f32>, {kk}>;\n{loads}\
                 \x20   dst[gid.y * sp.width + gid.x] = unorm_pack({f}(n, sp.op));\n",
                kk = k * k,
                f = self.compiled.fn_name,
            )
        };
        format!(
            "{wgsl}\n\
             struct UStencilParams {{\n    width: u32, height: u32, words: u32, _p1: u32,\n    op: {block},\n}}\n\
             @group(0) @binding(0) var<storage, read> src: array<u32>;\n\
             @group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n\
             @group(0) @binding(2) var<uniform> sp: UStencilParams;\n\
             fn ustencil_px(x: i32, y: i32) -> vec4<f32> {{\n\
             \x20   let cx = clamp(x, 0, i32(sp.width) - 1);\n\
             \x20   let cy = clamp(y, 0, i32(sp.height) - 1);\n\
             \x20   {px}\n\
             }}\n\
             @compute @workgroup_size({WX}, {WY})\n\
             fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n{main}}}\n",
            wgsl = self.compiled.wgsl,
            block = self.compiled.block,
        )
    }
}

/// Builds `stencil_kernel` from a spec's arguments: `file` or `code` (neither: the
/// identity), `radius`, and the other named numbers as `Params` fields.
fn build(a: &Args) -> Result<Box<dyn Filter>> {
    let radius = a.u32("radius")?;
    let named: Vec<(&str, f32)> = a
        .named()
        .iter()
        .map(|(n, v)| (n.as_str(), *v as f32))
        .collect();
    let k = match (a.path("file")?, a.text("code")?) {
        (Some(_), Some(_)) => {
            return Err(Error::StencilKernel(
                "give the kernel as file=PATH.wgsl or as code=\"...\", not both".into(),
            ))
        }
        (Some(path), None) => UserStencil::from_file(path, radius, &named)?,
        (None, Some(code)) => UserStencil::new(code, radius, &named)?,
        (None, None) if !named.is_empty() => {
            return Err(Error::StencilKernel(format!(
                "`{}` given but no kernel: give it as file=PATH.wgsl or code=\"...\"",
                named[0].0
            )))
        }
        (None, None) => {
            let centre = ((2 * radius + 1) * (2 * radius + 1) / 2) as usize;
            UserStencil::new(&identity(radius), radius, &[])?
                .with_cpu(move |n, _| n.get(centre).copied().unwrap_or([0.0; 4]))
        }
    };
    Ok(Box::new(k))
}

/// The registry entry of `stencil_kernel`.
pub static DEF: FilterDef = FilterDef {
    name: "stencil_kernel",
    family: Family::Neighborhood,
    summary: "Your own WGSL function of a pixel's 3x3 or 5x5 neighbourhood (a file or inline code) with named f32 parameters.",
    doc: "The source declares `fn kernel(n: array<vec4<f32>, 9>, p: Params) -> vec4<f32>` (radius=1, 3x3; \
`array<vec4<f32>, 25>` for radius=2, 5x5) and `struct Params { gain: f32, ... }` (f32 fields only), or the form without `p`. \
`n` is the neighbourhood row by row, entry (dy+r)*(2r+1)+(dx+r) for the pixel at offset (dx, dy) (n[4], or n[12], is the \
pixel itself), straight RGBA in [0, 1], edge pixels repeated past the borders; the result is clamped and quantised (RGBA8; \
Gray8 as (v, v, v, 1), keeping red). Every other `name=number` sets the `Params` field of that name, as in pixel_kernel, \
whose rules the source follows (helpers allowed; no module-scope `var`s, overrides or entry points). The source is \
validated when the spec is parsed (errors as `file:line:column`; an array whose length is not radius's is an error). \
It does not fuse; it tiles (its footprint is its radius). On the CPU (`--cpu`) it has no twin and is an error, unless the \
Rust API is given one (`UserStencil::with_cpu`). With neither `file` nor `code` it is the identity.",
    gpuimage: "",
    params: &[
        ParamDef::path("file", false, "wgsl", "the WGSL source file (at most 1 MiB)"),
        ParamDef::text("code", "the WGSL source inline, quoted: code=\"fn kernel(n: array<vec4<f32>, 9>) ...\""),
        ParamDef::int("radius", 1, 1, 2, "the neighbourhood's radius: 1 (3x3, n has 9 entries) or 2 (5x5, 25)"),
        ParamDef::named("NAME", "any other NAME=number sets the f32 field NAME of the source's `struct Params`"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build,
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

impl Filter for UserStencil {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(
            &DEF, inputs, 0, FORMATS,
        )?)])
    }
    fn run_cpu(&self, inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
        let Some(twin) = &self.cpu else {
            return Err(Error::StencilKernel(
                "has no CPU twin: give one with UserStencil::with_cpu (Rust API), or run it on the GPU"
                    .into(),
            ));
        };
        let img = input_image(&DEF, inputs, 0)?;
        let values = &self.values;
        let out = map_windows(img, 2 * self.radius + 1, |n| twin(n, values))?;
        Ok(vec![Value::Image(out)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (src, dst, d) = one_to_one(&DEF, inputs, outputs)?;
        let gray = d.format == PixelFormat::Gray8;
        let words = d.width.div_ceil(4);
        let mut uniform = Vec::with_capacity(32);
        for v in [d.width, d.height, words, 0] {
            uniform.extend_from_slice(&v.to_le_bytes());
        }
        uniform.extend_from_slice(&block_bytes(&self.values));
        let mut kernel = Kernel::new(
            &format!(
                "stencil_kernel.{}.{}",
                self.compiled.fn_name,
                if gray { "gray" } else { "rgba8" }
            ),
            &[],
            "main",
        );
        kernel.generated = Some(self.kernel_source(gray));
        let groups = if gray {
            groups_2d(words, d.height, WX, WY)
        } else {
            groups_2d(d.width, d.height, WX, WY)
        };
        rec.dispatch(&kernel, &[&src.buffer, &dst.buffer], &uniform, groups)
    }
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        Footprint::Radius(self.radius)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_is_checked() {
        let msg = |code: &str, r: u32| UserStencil::new(code, r, &[]).unwrap_err().to_string();
        let three = "fn kernel(n: array<vec4<f32>, 9>) -> vec4<f32> {\n    return n[4];\n}\n";
        let e = msg(three, 2);
        assert!(
            e.starts_with(
                "stencil_kernel: code:1:1: `fn kernel` takes array<vec4<f32>, 9> but radius=2"
            ),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(UserStencil::new(three, 1, &[]).is_ok());
        let e = msg("fn kernel(c: vec4<f32>) -> vec4<f32> { return c; }", 1);
        assert!(
            e.contains("must be fn kernel(n: array<vec4<f32>, 9>, p: Params)"),
            "{e}"
        );
        assert!(msg(three, 3).contains("radius is 3"));
        let e = msg(
            "fn kernel(n: array<vec4<f32>, 9>) -> vec4<f32> {\n    return n[4] * k;\n}\n",
            1,
        );
        assert!(e.starts_with("stencil_kernel: code:2:19: "), "{e}");
        // the generated kernel parses
        let k = UserStencil::new(three, 1, &[]).unwrap();
        for gray in [false, true] {
            let src = format!(
                "fn unorm_unpack(x: u32) -> vec4<f32> {{ return vec4<f32>(0.0); }}\nfn unorm_pack(c: vec4<f32>) -> u32 {{ return 0u; }}\n{}",
                k.kernel_source(gray)
            );
            if let Err(e) = naga::front::wgsl::parse_str(&src) {
                panic!("{}\n{src}", e.emit_to_string(&src));
            }
        }
    }
}
