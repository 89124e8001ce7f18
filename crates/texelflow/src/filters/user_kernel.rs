//! Kernels of your own at run time: a per-pixel WGSL function given inline or as a file, with
//! named `f32` parameters (`pixel_kernel(file=warm.wgsl, amount=0.3)` in a spec,
//! [`UserKernel`] in Rust). It fuses with neighbouring per-pixel filters exactly as the
//! built-in ones do (`graph::fuse`).
//!
//! The contract: the source declares
//!
//! ```wgsl
//! struct Params { amount: f32, }                      // f32 fields only; optional
//! fn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {   // or fn kernel(c: vec4<f32>) without parameters
//!     return vec4<f32>(c.rgb * (1.0 + p.amount), c.a);
//! }
//! ```
//!
//! `c` is the pixel's straight RGBA in [0, 1]; the result is clamped and quantised to the
//! image's format. The spec's (or `UserKernel::new`'s) named values fill the fields of
//! `Params` by name; a missing or an unknown name is an error. Helper functions, structs,
//! constants and aliases may be declared beside them; module-scope variables, overrides and
//! entry points may not, and the library's WGSL helpers are not visible.
//!
//! The source is parsed and validated by naga when the kernel is made (when a spec is
//! parsed), with errors as `origin:line:column: message`. So that several user kernels fuse
//! into one WGSL module, every module-scope name of a source gets a prefix unique to that
//! source (`user<N>_`, N interned per distinct source text for the process), and the
//! fused kernel's cache key names the prefixed function: two different sources never share
//! a compiled kernel.
//!
//! On the CPU a user kernel needs a twin: [`UserKernel::with_cpu`]; without one, running it
//! on the CPU is an error.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, Family, Filter, FilterDef, Footprint, PixelOpGpu, EXACT_ENOUGH,
    IMAGE,
};
use crate::filters::shape::pixel::{map_pixels, PIXEL_FORMATS};
use crate::graph::params::{Args, ParamDef};
use crate::runtime::uniform::FieldLayout;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// The longest source accepted, inline or from a file, bytes.
pub const MAX_SOURCE_BYTES: u64 = 1 << 20;

/// The most `Params` fields a kernel may declare.
pub const MAX_PARAMS: usize = 64;

/// The function a source must declare.
pub const ENTRY: &str = "kernel";

/// The parameter struct a source declares when its function takes parameters.
pub const PARAMS: &str = "Params";

/// The kernel a spec's `pixel_kernel` without `file` or `code` runs: the identity (with an
/// identity CPU twin), so that it runs anywhere a filter with default parameters must.
pub const IDENTITY: &str = "fn kernel(c: vec4<f32>) -> vec4<f32> {\n    return c;\n}\n";

/// A CPU twin of a user kernel: the pixel's RGBA in [0, 1] and the `Params` values in the
/// order the struct declares them, to the new RGBA (clamped and quantised after).
pub type CpuTwin = Arc<dyn Fn([f32; 4], &[f32]) -> [f32; 4] + Send + Sync>;

/// The members of the generated parameter block (vec4s of the `Params` values in order).
const BLOCK_MEMBERS: [&str; MAX_PARAMS / 4] = [
    "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14",
    "v15",
];

/// What a user kernel's function takes: one pixel (`pixel_kernel`) or the neighbourhood of
/// radius r (`stencil_kernel`: `array<vec4<f32>, (2r+1)^2>`, row-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    /// `fn kernel(c: vec4<f32>, ...)`.
    Pixel,
    /// `fn kernel(n: array<vec4<f32>, (2r+1)^2>, ...)`, r the radius.
    Stencil(u32),
}

impl Shape {
    /// The error of this kind of kernel (its filter's name in front).
    pub(crate) fn err(self, message: String) -> Error {
        match self {
            Shape::Pixel => Error::Kernel(message),
            Shape::Stencil(_) => Error::StencilKernel(message),
        }
    }
    /// The filter's name in specs.
    fn filter(self) -> &'static str {
        match self {
            Shape::Pixel => "pixel_kernel",
            Shape::Stencil(_) => "stencil_kernel",
        }
    }
    /// The WGSL type of the function's first argument.
    fn input(self) -> String {
        match self {
            Shape::Pixel => "vec4<f32>".into(),
            Shape::Stencil(r) => format!("array<vec4<f32>, {}>", (2 * r + 1) * (2 * r + 1)),
        }
    }
    /// The first argument's name in the contract.
    fn arg(self) -> &'static str {
        match self {
            Shape::Pixel => "c",
            Shape::Stencil(_) => "n",
        }
    }
}

/// What a source compiles to, shared by every kernel made from the same text.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// `Params`' fields, in declaration order (empty for a kernel without parameters).
    pub(crate) params: Vec<String>,
    /// The prefixed source, the block struct and the wrapper the fused kernel calls.
    pub(crate) wgsl: String,
    /// The wrapper's name (`user<N>op`).
    pub(crate) fn_name: String,
    /// The block struct's name (`user<N>block`).
    pub(crate) block: String,
}

/// A per-pixel kernel written in WGSL at run time (see the module's docs for the contract),
/// with its parameter values and, optionally, a CPU twin.
///
/// ```no_run
/// # fn main() -> texelflow::Result<()> {
/// let warm = texelflow::UserKernel::new(
///     "struct Params { amount: f32 }\n\
///      fn kernel(c: vec4<f32>, p: Params) -> vec4<f32> { return vec4<f32>(c.r + p.amount, c.gb, c.a); }",
///     &[("amount", 0.1)],
/// )?
/// .with_cpu(|c, p| [c[0] + p[0], c[1], c[2], c[3]]);
/// let pipeline = texelflow::Pipeline::new().then(warm);
/// # let _ = pipeline; Ok(()) }
/// ```
#[derive(Clone)]
pub struct UserKernel {
    compiled: Arc<Compiled>,
    values: Vec<f32>,
    cpu: Option<CpuTwin>,
}

impl std::fmt::Debug for UserKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserKernel")
            .field("fn_name", &self.compiled.fn_name)
            .field("params", &self.compiled.params)
            .field("values", &self.values)
            .field("cpu", &self.cpu.is_some())
            .finish()
    }
}

impl UserKernel {
    /// A kernel from WGSL source given inline (named `code` in messages), its `Params`
    /// fields set from `params` by name.
    pub fn new(code: &str, params: &[(&str, f32)]) -> Result<Self> {
        Self::from_source("code", code, params)
    }

    /// A kernel from WGSL source, `origin` naming it in messages (`origin:line:column`).
    pub fn from_source(origin: &str, code: &str, params: &[(&str, f32)]) -> Result<Self> {
        let (compiled, values) = source(Shape::Pixel, origin, code, params)?;
        Ok(Self {
            compiled,
            values,
            cpu: None,
        })
    }

    /// A kernel from a `.wgsl` file (a regular file of at most `MAX_SOURCE_BYTES`).
    pub fn from_file(path: impl AsRef<Path>, params: &[(&str, f32)]) -> Result<Self> {
        let (shown, code) = read_source(Shape::Pixel, path.as_ref())?;
        Self::from_source(&shown, &code, params)
    }

    /// The same kernel with a CPU twin, for the CPU reference (`Backend::Cpu`): `f` gets the
    /// pixel's RGBA in [0, 1] and the `Params` values in the struct's order.
    pub fn with_cpu(
        mut self,
        f: impl Fn([f32; 4], &[f32]) -> [f32; 4] + Send + Sync + 'static,
    ) -> Self {
        self.cpu = Some(Arc::new(f));
        self
    }

    /// The same kernel with a CPU twin already shared (`with_cpu`).
    pub fn with_cpu_twin(mut self, twin: CpuTwin) -> Self {
        self.cpu = Some(twin);
        self
    }

    /// `Params`' fields, in the struct's order.
    pub fn params(&self) -> &[String] {
        &self.compiled.params
    }

    /// The parameter values, in the struct's order.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// The function the fused kernel calls (`user<N>op`), unique to the source text.
    pub fn fn_name(&self) -> &str {
        &self.compiled.fn_name
    }

    fn gpu_op(&self) -> PixelOpGpu {
        let uniform = block_bytes(&self.values);
        let fields = (0..uniform.len() / 16)
            .map(|k| FieldLayout {
                name: BLOCK_MEMBERS[k],
                wgsl: "vec4<f32>",
                offset: 16 * k,
                size: 16,
            })
            .collect();
        PixelOpGpu {
            fn_name: Cow::Owned(self.compiled.fn_name.clone()),
            params_struct: Cow::Owned(self.compiled.block.clone()),
            wgsl: Cow::Owned(self.compiled.wgsl.clone()),
            uniform,
            fields,
            position: false,
            inputs: 1,
            per_channel: false,
            table_by_default: false,
            body_by_reference: None,
        }
    }
}

/// The parameter block's bytes: the values in order, padded to whole vec4s (at least one).
pub(crate) fn block_bytes(values: &[f32]) -> Vec<u8> {
    let mut uniform: Vec<u8> = Vec::new();
    for v in values {
        uniform.extend_from_slice(&v.to_le_bytes());
    }
    uniform.resize(uniform.len().div_ceil(16).max(1) * 16, 0);
    uniform
}

/// A source given inline or read, checked and compiled for `shape`, with its values.
pub(crate) fn source(
    shape: Shape,
    origin: &str,
    code: &str,
    params: &[(&str, f32)],
) -> Result<(Arc<Compiled>, Vec<f32>)> {
    if code.len() as u64 > MAX_SOURCE_BYTES {
        return Err(shape.err(format!(
            "{origin}: the source is {} bytes, more than the {} a kernel may have",
            code.len(),
            MAX_SOURCE_BYTES
        )));
    }
    let compiled = compiled(shape, origin, code)?;
    let values = fill(shape, origin, &compiled.params, params)?;
    Ok((compiled, values))
}

/// A `.wgsl` file's text (a regular file of at most `MAX_SOURCE_BYTES`) and its name.
pub(crate) fn read_source(shape: Shape, path: &Path) -> Result<(String, String)> {
    let shown = path.display().to_string();
    let bytes = crate::input::read_capped(path, MAX_SOURCE_BYTES, "the most a kernel may have")
        .map_err(|e| shape.err(format!("{shown}: {e}")))?;
    let code =
        String::from_utf8(bytes).map_err(|_| shape.err(format!("{shown}: is not UTF-8 text")))?;
    Ok((shown, code))
}

/// The values of `declared` from `given`, by name; a missing or unknown name is an error.
fn fill(
    shape: Shape,
    origin: &str,
    declared: &[String],
    given: &[(&str, f32)],
) -> Result<Vec<f32>> {
    let list = || {
        if declared.is_empty() {
            format!("`fn {ENTRY}` takes no parameters")
        } else {
            format!("struct {PARAMS} declares {}", declared.join(", "))
        }
    };
    for (k, (name, v)) in given.iter().enumerate() {
        if !declared.iter().any(|d| d == name) {
            return Err(shape.err(format!("{origin}: unknown parameter `{name}`: {}", list())));
        }
        if given[..k].iter().any(|(n, _)| n == name) {
            return Err(shape.err(format!("{origin}: parameter `{name}` given twice")));
        }
        if !v.is_finite() {
            return Err(shape.err(format!(
                "{origin}: parameter `{name}` is {v}, not a finite number"
            )));
        }
    }
    declared
        .iter()
        .map(|d| {
            given
                .iter()
                .find(|(n, _)| n == d)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    shape.err(format!(
                        "{origin}: parameter `{d}` is not given ({}); e.g. {}(..., {d}=0.5)",
                        list(),
                        shape.filter()
                    ))
                })
        })
        .collect()
}

/// The compiled form of `code`, from the process's cache of sources (by text) or made now.
fn compiled(shape: Shape, origin: &str, code: &str) -> Result<Arc<Compiled>> {
    type Cache = Mutex<(HashMap<(Shape, String), Arc<Compiled>>, u64)>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new((HashMap::new(), 0)));
    let key = (shape, code.to_string());
    if let Some(c) = cache.lock().unwrap_or_else(|e| e.into_inner()).0.get(&key) {
        return Ok(c.clone());
    }
    // checked outside the lock (a large source takes a while); a source that fails is not kept
    let params = check(shape, origin, code)?;
    let mut guard = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = guard.0.get(&key) {
        return Ok(c.clone());
    }
    let id = guard.1;
    let made = Arc::new(generate(shape, origin, code, id, params)?);
    guard.1 += 1;
    guard.0.insert(key, made.clone());
    Ok(made)
}

/// `origin:line:column` of byte `offset` in `code`, the column in characters.
fn at(origin: &str, code: &str, offset: usize) -> String {
    let offset = offset.min(code.len());
    let prefix = code.get(..offset).unwrap_or(code);
    let line = prefix.matches('\n').count() + 1;
    let column = prefix.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{origin}:{line}:{column}")
}

/// An error's message with its causes, `: `-joined.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

/// Parses and validates `code` with naga and checks the contract; returns `Params`' fields.
fn check(shape: Shape, origin: &str, code: &str) -> Result<Vec<String>> {
    let parsed = std::panic::catch_unwind(|| naga::front::wgsl::parse_str(code))
        .map_err(|_| shape.err(format!("{origin}: the WGSL parser failed on this source")))?;
    let module = parsed.map_err(|e| {
        let place = match e.location(code) {
            Some(l) => at(origin, code, l.offset as usize),
            None => origin.to_string(),
        };
        shape.err(format!("{place}: {}", e.message()))
    })?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    );
    if let Err(e) = validator.validate(&module) {
        // the narrowest span is the most precise place (naga lists the function's own too)
        let narrowest = e
            .spans()
            .filter_map(|(span, _)| span.to_range())
            .min_by_key(|r| r.len());
        let place = match narrowest {
            Some(r) => at(origin, code, r.start),
            None => origin.to_string(),
        };
        return Err(shape.err(format!("{place}: {}", chain(e.as_inner()))));
    }
    let span_at = |span: naga::Span| match span.to_range() {
        Some(r) => at(origin, code, r.start),
        None => origin.to_string(),
    };
    if let Some(ep) = module.entry_points.first() {
        return Err(shape.err(format!(
            "{origin}: entry point `{}` is not allowed: declare `fn {ENTRY}`, the fused kernel calls it",
            ep.name
        )));
    }
    if let Some((h, g)) = module.global_variables.iter().next() {
        return Err(shape.err(format!(
            "{}: module-scope `var {}` is not allowed: a kernel reads only `c` and `p`",
            span_at(module.global_variables.get_span(h)),
            g.name.as_deref().unwrap_or("")
        )));
    }
    if let Some((h, o)) = module.overrides.iter().next() {
        return Err(shape.err(format!(
            "{}: `override {}` is not allowed: use a `{PARAMS}` field",
            span_at(module.overrides.get_span(h)),
            o.name.as_deref().unwrap_or("")
        )));
    }
    let (arg, input) = (shape.arg(), shape.input());
    let signature = format!(
        "fn {ENTRY}({arg}: {input}, p: {PARAMS}) -> vec4<f32> (or fn {ENTRY}({arg}: {input}) -> vec4<f32>)"
    );
    let Some((fh, f)) = module
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(ENTRY))
    else {
        return Err(shape.err(format!(
            "{origin}: no function `{ENTRY}`: declare {signature}"
        )));
    };
    let here = span_at(module.functions.get_span(fh));
    let is_vec4 = |ty: naga::Handle<naga::Type>| {
        matches!(
            module.types[ty].inner,
            naga::TypeInner::Vector {
                size: naga::VectorSize::Quad,
                scalar: naga::Scalar::F32
            }
        )
    };
    let result_ok = f.result.as_ref().is_some_and(|r| is_vec4(r.ty));
    let first_ok = match (shape, f.arguments.first()) {
        (_, None) => false,
        (Shape::Pixel, Some(a)) => is_vec4(a.ty),
        (Shape::Stencil(r), Some(a)) => {
            let want = (2 * r + 1) * (2 * r + 1);
            match module.types[a.ty].inner {
                naga::TypeInner::Array {
                    base,
                    size: naga::ArraySize::Constant(len),
                    ..
                } if is_vec4(base) => {
                    if len.get() != want {
                        return Err(shape.err(format!(
                            "{here}: `fn {ENTRY}` takes array<vec4<f32>, {len}> but radius={r} is a {side}x{side} neighbourhood: declare {arg}: {input}",
                            side = 2 * r + 1
                        )));
                    }
                    true
                }
                _ => false,
            }
        }
    };
    let second = f.arguments.get(1).map(|a| &module.types[a.ty]);
    let second_ok = match second {
        None => true,
        Some(t) => t.name.as_deref() == Some(PARAMS),
    };
    if !result_ok || !first_ok || !second_ok || f.arguments.len() > 2 {
        return Err(shape.err(format!("{here}: `fn {ENTRY}` must be {signature}")));
    }
    let Some(params) = second else {
        return Ok(Vec::new());
    };
    let naga::TypeInner::Struct { members, .. } = &params.inner else {
        return Err(shape.err(format!("{here}: `{PARAMS}` must be a struct")));
    };
    let mut names = Vec::new();
    for m in members {
        let name = m.name.clone().unwrap_or_default();
        if !matches!(
            module.types[m.ty].inner,
            naga::TypeInner::Scalar(naga::Scalar::F32)
        ) {
            return Err(shape.err(format!(
                "{origin}: field `{name}` of struct {PARAMS} must be f32 (parameters are f32 values)"
            )));
        }
        names.push(name);
    }
    if names.len() > MAX_PARAMS {
        return Err(shape.err(format!(
            "{origin}: struct {PARAMS} has {} fields, more than the {MAX_PARAMS} a kernel may have",
            names.len()
        )));
    }
    Ok(names)
}

/// One token of WGSL, as far as renaming needs: identifiers apart from the rest.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    /// An identifier (or keyword).
    Ident,
    /// A number literal.
    Number,
    /// One punctuation character.
    Punct(char),
}

/// The tokens of `code` with their byte ranges, comments and whitespace skipped.
fn tokens(code: &str) -> Vec<(Tok, usize, usize)> {
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let end_of = |k: usize| chars.get(k).map_or(code.len(), |c| c.0);
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let (start, c) = chars[k];
        let next = chars.get(k + 1).map(|c| c.1);
        if c.is_whitespace() {
            k += 1;
        } else if c == '/' && next == Some('/') {
            while k < chars.len() && chars[k].1 != '\n' {
                k += 1;
            }
        } else if c == '/' && next == Some('*') {
            // block comments nest in WGSL
            let mut depth = 0usize;
            while k < chars.len() {
                let n = chars.get(k + 1).map(|c| c.1);
                if chars[k].1 == '/' && n == Some('*') {
                    depth += 1;
                    k += 2;
                } else if chars[k].1 == '*' && n == Some('/') {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    k += 1;
                }
            }
        } else if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) {
            while k < chars.len()
                && (chars[k].1.is_alphanumeric() || chars[k].1 == '.' || chars[k].1 == '_')
            {
                k += 1;
            }
            out.push((Tok::Number, start, end_of(k)));
        } else if c.is_alphabetic() || c == '_' {
            while k < chars.len() && (chars[k].1.is_alphanumeric() || chars[k].1 == '_') {
                k += 1;
            }
            out.push((Tok::Ident, start, end_of(k)));
        } else {
            out.push((Tok::Punct(c), start, end_of(k + 1)));
            k += 1;
        }
    }
    out
}

/// The names `code` declares at module scope, and the member names of its structs.
fn declared_names(code: &str, toks: &[(Tok, usize, usize)]) -> (HashSet<String>, Vec<String>) {
    let text = |t: &(Tok, usize, usize)| &code[t.1..t.2];
    let mut module = HashSet::new();
    let mut members = Vec::new();
    let mut depth = 0i64;
    let mut struct_body: Option<i64> = None;
    let mut k = 0;
    while k < toks.len() {
        let t = toks[k];
        match t.0 {
            Tok::Punct('{') => {
                depth += 1;
            }
            Tok::Punct('}') => {
                depth -= 1;
                if struct_body.is_some_and(|d| depth < d) {
                    struct_body = None;
                }
            }
            Tok::Ident if depth == 0 => {
                let word = text(&t);
                if matches!(
                    word,
                    "fn" | "struct" | "alias" | "const" | "override" | "var"
                ) {
                    let mut n = k + 1;
                    if word == "var" && toks.get(n).is_some_and(|t| t.0 == Tok::Punct('<')) {
                        while n < toks.len() && toks[n].0 != Tok::Punct('>') {
                            n += 1;
                        }
                        n += 1;
                    }
                    if let Some(name) = toks.get(n).filter(|t| t.0 == Tok::Ident) {
                        module.insert(text(name).to_string());
                    }
                    if word == "struct" {
                        struct_body = Some(1);
                    }
                }
            }
            Tok::Ident if struct_body == Some(depth) => {
                let after_at = k > 0 && toks[k - 1].0 == Tok::Punct('@');
                if !after_at && toks.get(k + 1).is_some_and(|t| t.0 == Tok::Punct(':')) {
                    members.push(text(&t).to_string());
                }
            }
            _ => {}
        }
        k += 1;
    }
    (module, members)
}

/// Whether `word` has the form of a prefixed name, `user<digits>_...`.
fn is_prefixed(word: &str) -> bool {
    word.strip_prefix("user").is_some_and(|rest| {
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        digits > 0 && rest[digits..].starts_with('_')
    })
}

/// The module for the fused kernel: `code` with its module-scope names prefixed
/// (`user<id>_name`), the block struct the chain's uniform holds (`user<id>block`), and the
/// wrapper `user<id>op(c, block)` that calls the kernel with its `Params` made from the
/// block. No prefixed name can be the wrapper's or the block's (those have no `_` after the
/// number), and the source may hold no name of the prefixed form, which could shadow one.
fn generate(
    shape: Shape,
    origin: &str,
    code: &str,
    id: u64,
    params: Vec<String>,
) -> Result<Compiled> {
    let prefix = format!("user{id}_");
    let toks = tokens(code);
    if let Some(t) = toks
        .iter()
        .find(|t| t.0 == Tok::Ident && is_prefixed(&code[t.1..t.2]))
    {
        return Err(shape.err(format!(
            "{}: the name `{}` has the form user<N>_..., which texelflow keeps for the names it gives a kernel's declarations; rename it",
            at(origin, code, t.1),
            &code[t.1..t.2]
        )));
    }
    let (module, members) = declared_names(code, &toks);
    if let Some(m) = members.iter().find(|m| module.contains(*m)) {
        return Err(shape.err(format!(
            "{origin}: a struct field is named `{m}` like a module-scope declaration; rename one of them"
        )));
    }
    let mut out = String::with_capacity(code.len() + 256);
    let mut last = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.0 != Tok::Ident || !module.contains(&code[t.1..t.2]) {
            continue;
        }
        // a field or swizzle after `.`, an attribute's name after `@`: not a declaration's name
        if k > 0 && matches!(toks[k - 1].0, Tok::Punct('.') | Tok::Punct('@')) {
            continue;
        }
        out.push_str(&code[last..t.1]);
        out.push_str(&prefix);
        out.push_str(&code[t.1..t.2]);
        last = t.2;
    }
    out.push_str(&code[last..]);
    let fn_name = format!("user{id}op");
    let block = format!("user{id}block");
    let rows = params.len().div_ceil(4).max(1);
    out.push_str(&format!("\nstruct {block} {{\n"));
    for name in BLOCK_MEMBERS.iter().take(rows) {
        out.push_str(&format!("    {name}: vec4<f32>,\n"));
    }
    out.push_str("}\n");
    let (arg, input) = (shape.arg(), shape.input());
    let call = if params.is_empty() {
        format!("{prefix}{ENTRY}({arg})")
    } else {
        let args: Vec<String> = (0..params.len())
            .map(|i| format!("p.{}.{}", BLOCK_MEMBERS[i / 4], ["x", "y", "z", "w"][i % 4]))
            .collect();
        format!(
            "{prefix}{ENTRY}({arg}, {prefix}{PARAMS}({}))",
            args.join(", ")
        )
    };
    out.push_str(&format!(
        "fn {fn_name}({arg}: {input}, p: {block}) -> vec4<f32> {{\n    return {call};\n}}\n"
    ));
    // the prefixed module must still be valid on its own; a failure here is the renamer's
    if let Err(e) = naga::front::wgsl::parse_str(&out) {
        return Err(shape.err(format!(
            "{origin}: the source could not be given its per-kernel names ({}); rename its declarations or report this",
            e.message()
        )));
    }
    Ok(Compiled {
        params,
        wgsl: out,
        fn_name,
        block,
    })
}

/// Builds `pixel_kernel` from a spec's arguments: `file` or `code` (neither: the identity),
/// and the other named numbers as `Params` fields.
fn build(a: &Args) -> Result<Box<dyn Filter>> {
    let named: Vec<(&str, f32)> = a
        .named()
        .iter()
        .map(|(n, v)| (n.as_str(), *v as f32))
        .collect();
    let k = match (a.path("file")?, a.text("code")?) {
        (Some(_), Some(_)) => {
            return Err(Error::Kernel(
                "give the kernel as file=PATH.wgsl or as code=\"...\", not both".into(),
            ))
        }
        (Some(path), None) => UserKernel::from_file(path, &named)?,
        (None, Some(code)) => UserKernel::new(code, &named)?,
        (None, None) if !named.is_empty() => {
            return Err(Error::Kernel(format!(
                "`{}` given but no kernel: give it as file=PATH.wgsl or code=\"...\"",
                named[0].0
            )))
        }
        (None, None) => UserKernel::new(IDENTITY, &[])?.with_cpu(|c, _| c),
    };
    Ok(Box::new(k))
}

/// The registry entry of `pixel_kernel`.
pub static DEF: FilterDef = FilterDef {
    name: "pixel_kernel",
    family: Family::Color,
    summary: "Your own per-pixel WGSL function (a file or inline code) with named f32 parameters; fuses like the built-ins.",
    doc: "The source declares `fn kernel(c: vec4<f32>, p: Params) -> vec4<f32>` and `struct Params { amount: f32, ... }` \
(f32 fields only), or `fn kernel(c: vec4<f32>) -> vec4<f32>` without parameters; `c` is the pixel's RGBA in [0, 1], the \
result is clamped and quantised. Every other `name=number` of the call sets the `Params` field of that name; a missing or \
unknown one is an error. Helper functions, structs, constants and aliases may be declared too; module-scope `var`s, \
overrides and entry points may not, and texelflow's own WGSL helpers are not visible. The source is parsed and validated \
when the spec is (errors as `file:line:column`), and fuses with neighbouring per-pixel filters into one kernel. On the CPU \
(`--cpu`) it has no twin and is an error, unless the Rust API is given one (`UserKernel::with_cpu`). With neither `file` nor `code` it is the identity.",
    gpuimage: "",
    params: &[
        ParamDef::path("file", false, "wgsl", "the WGSL source file (at most 1 MiB)"),
        ParamDef::text("code", "the WGSL source inline, quoted: code=\"fn kernel(...) ...\""),
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

impl Filter for UserKernel {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(
            &DEF,
            inputs,
            0,
            PIXEL_FORMATS,
        )?)])
    }
    fn run_cpu(&self, inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
        let Some(twin) = &self.cpu else {
            return Err(Error::Kernel(
                "has no CPU twin: give one with UserKernel::with_cpu (Rust API), or run it on the GPU"
                    .into(),
            ));
        };
        let img = input_image(&DEF, inputs, 0)?;
        let values = &self.values;
        let out = map_pixels(img, None, |c, _, _| twin(c, values))?;
        Ok(vec![Value::Image(out)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (Some(src), Some(dst)) = (inputs.first(), outputs.first()) else {
            return Err(Error::invalid(
                "`pixel_kernel` needs an input and an output",
            ));
        };
        crate::graph::fuse::record_fused(rec, &[self.gpu_op()], src, &[], dst)
    }
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        Footprint::Pixel
    }
    fn pixel_op(&self) -> Option<PixelOpGpu> {
        Some(self.gpu_op())
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WARM: &str = "// warm\nstruct Params { amount: f32, other: f32 }\nconst K: f32 = 0.5;\nfn helper(x: f32) -> f32 { return x * K; }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    let kernel = helper(p.amount);\n    return vec4<f32>(c.r + kernel, c.g, c.b + p.other, c.a);\n}\n";

    #[test]
    fn names_are_prefixed_and_the_wrapper_calls_the_kernel() {
        let k = UserKernel::new(WARM, &[("other", 0.25), ("amount", 0.5)]).unwrap();
        assert_eq!(k.params(), ["amount", "other"]);
        assert_eq!(k.values(), [0.5, 0.25]);
        let w = &k.compiled.wgsl;
        let p = format!("{}_", k.fn_name().trim_end_matches("op"));
        assert!(w.contains(&format!("struct {p}Params")), "{w}");
        assert!(w.contains(&format!("fn {p}helper(x: f32)")), "{w}");
        assert!(w.contains(&format!("x * {p}K")), "{w}");
        assert!(
            w.contains("p.amount") && !w.contains(&format!(".{p}amount")),
            "{w}"
        );
        assert!(
            w.contains(&format!("{p}kernel(c, {p}Params(p.v0.x, p.v0.y))")),
            "{w}"
        );
        // the same text shares its compiled form; another text gets another prefix
        let again = UserKernel::new(WARM, &[("other", 0.0), ("amount", 0.0)]).unwrap();
        assert_eq!(again.fn_name(), k.fn_name());
        let other = UserKernel::new(
            &WARM.replace("0.5", "0.25"),
            &[("other", 0.0), ("amount", 0.0)],
        )
        .unwrap();
        assert_ne!(other.fn_name(), k.fn_name());
    }

    #[test]
    fn errors_have_line_and_column() {
        let e = UserKernel::from_source(
            "warm.wgsl",
            "fn kernel(c: vec4<f32>) -> vec4<f32> {\n    return c\n}\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("pixel_kernel: warm.wgsl:3:1: "), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        let e = UserKernel::new(
            "fn kernel(c: vec4<f32>) -> vec4<f32> {\n  return c + nope;\n}",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("pixel_kernel: code:2:14: "), "{e}");
    }

    #[test]
    fn contract_is_checked() {
        let msg = |code: &str, p: &[(&str, f32)]| UserKernel::new(code, p).unwrap_err().to_string();
        assert!(msg("fn f(c: vec4<f32>) -> vec4<f32> { return c; }", &[])
            .contains("no function `kernel`"));
        assert!(msg(
            "fn kernel(c: vec3<f32>) -> vec4<f32> { return vec4<f32>(c, 1.0); }",
            &[]
        )
        .contains("must be fn kernel(c: vec4<f32>, p: Params)"));
        let with = "struct Params { amount: f32 }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> { return c * p.amount; }";
        assert!(msg(with, &[]).contains("parameter `amount` is not given"));
        assert!(msg(with, &[("amount", 1.0), ("amout", 1.0)])
            .contains("unknown parameter `amout`: struct Params declares amount"));
        assert!(msg("struct Params { n: u32 }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> { return c; }", &[("n", 1.0)]).contains("must be f32"));
        assert!(msg(
            "var<private> x: f32;\nfn kernel(c: vec4<f32>) -> vec4<f32> { return c; }",
            &[]
        )
        .contains(":1:"));
        // names of the prefixed form are refused; a declaration named like the wrapper is fine
        assert!(msg("fn kernel(c: vec4<f32>) -> vec4<f32> {\n  let user3_x = 1.0;\n  return c * user3_x;\n}", &[]).contains("code:2:7: the name `user3_x`"));
        let k = UserKernel::new("fn op(c: vec4<f32>) -> vec4<f32> { return c; }\nstruct block { x: f32 }\nfn kernel(c: vec4<f32>) -> vec4<f32> { return op(c); }", &[]).unwrap();
        assert!(k
            .compiled
            .wgsl
            .contains(&format!("fn {}(c: vec4<f32>, p: ", k.fn_name())));
    }
}
