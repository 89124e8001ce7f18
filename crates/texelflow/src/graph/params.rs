//! Parameter declarations and validated argument sets. Filters declare their parameters
//! once (`ParamDef`); the spec parser, CLI, `texelflow help`, docs/filters.md and property
//! tests read the same declarations.

use crate::error::{nearest, Error, Result};
use crate::graph::filter::FilterDef;

/// A parameter's type, default and valid range.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// A real number.
    Float {
        /// Value when not given.
        default: f64,
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
    },
    /// An integer.
    Int {
        /// Value when not given.
        default: i64,
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `true` or `false`.
    Bool {
        /// Value when not given.
        default: bool,
    },
    /// One of a fixed set of words.
    Choice {
        /// Value when not given.
        default: &'static str,
        /// The allowed words.
        options: &'static [&'static str],
    },
    /// A fixed-length list of numbers.
    Floats {
        /// Value when not given.
        default: &'static [f64],
        /// Smallest allowed element.
        min: f64,
        /// Largest allowed element.
        max: f64,
    },
    /// A curve's control points, written flat as `[x0,y0, x1,y1, ...]`: 2 to `max_points`
    /// points in [0, 1] with x strictly increasing (`tone_curve(rgb=[0,0, 0.3,0.2, 1,1])`).
    Points {
        /// Value when not given (flat).
        default: &'static [f64],
        /// Most points allowed.
        max_points: usize,
    },
    /// A file the filter reads when it is built (`file=grade.cube`), relative to the working
    /// directory; `extension` names the expected kind in messages. An optional one has no
    /// value unless given.
    Path {
        /// Whether the filter needs the file.
        required: bool,
        /// The expected file extension, for messages.
        extension: &'static str,
    },
    /// An extra image input, given in specs as a path (`with=overlay.png`); it names one of
    /// the filter's input ports.
    Image,
    /// Text, optional (no value unless given): a user kernel's WGSL inline
    /// (`pixel_kernel(code="...")`); quote it when it holds spaces or punctuation.
    Text,
    /// Any other `name=number` the filter is given: named values beyond its declared
    /// parameters (a user kernel's `struct Params` fields), read with `Args::named`. The
    /// declaration's own name (`NAME`) is for help text only.
    Named,
}

/// One declared parameter.
#[derive(Clone, Copy, Debug)]
pub struct ParamDef {
    /// The parameter's name in specs.
    pub name: &'static str,
    /// Type, default and range.
    pub kind: ParamKind,
    /// One line of help.
    pub doc: &'static str,
}

impl ParamDef {
    /// A float parameter.
    pub const fn float(
        name: &'static str,
        default: f64,
        min: f64,
        max: f64,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Float { default, min, max },
            doc,
        }
    }
    /// An integer parameter.
    pub const fn int(
        name: &'static str,
        default: i64,
        min: i64,
        max: i64,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Int { default, min, max },
            doc,
        }
    }
    /// A boolean parameter.
    pub const fn boolean(name: &'static str, default: bool, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Bool { default },
            doc,
        }
    }
    /// A choice among `options`.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        options: &'static [&'static str],
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Choice { default, options },
            doc,
        }
    }
    /// A fixed-length list of numbers, each in [min, max].
    pub const fn floats(
        name: &'static str,
        default: &'static [f64],
        min: f64,
        max: f64,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Floats { default, min, max },
            doc,
        }
    }
    /// An extra image input given as a path.
    pub const fn image(name: &'static str, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Image,
            doc,
        }
    }
    /// A curve's control points (`ParamKind::Points`).
    pub const fn points(
        name: &'static str,
        default: &'static [f64],
        max_points: usize,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Points {
                default,
                max_points,
            },
            doc,
        }
    }
    /// Text (`ParamKind::Text`).
    pub const fn text(name: &'static str, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Text,
            doc,
        }
    }
    /// Other named numbers (`ParamKind::Named`).
    pub const fn named(name: &'static str, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Named,
            doc,
        }
    }
    /// A file path (`ParamKind::Path`).
    pub const fn path(
        name: &'static str,
        required: bool,
        extension: &'static str,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Path {
                required,
                extension,
            },
            doc,
        }
    }

    /// Human-readable type and range, e.g. `float in [0, 4], default 1`.
    pub fn describe(&self) -> String {
        match self.kind {
            ParamKind::Float { default, min, max } => {
                format!("float in [{min}, {max}], default {default}")
            }
            ParamKind::Int { default, min, max } => {
                format!("integer in [{min}, {max}], default {default}")
            }
            ParamKind::Bool { default } => format!("true/false, default {default}"),
            ParamKind::Choice { default, options } => {
                format!("one of {}, default {default}", options.join("|"))
            }
            ParamKind::Floats { default, min, max } => format!(
                "list of {} numbers in [{min}, {max}], default {:?}",
                default.len(),
                default
            ),
            ParamKind::Image => "image path (required)".to_string(),
            ParamKind::Text => "text, quoted (optional)".to_string(),
            ParamKind::Named => "any other name=number (optional, any count)".to_string(),
            ParamKind::Points {
                default,
                max_points,
            } => {
                format!("control points [x0,y0, x1,y1, ...] in [0, 1], 2 to {max_points} points, x increasing, default {}", format_points(default))
            }
            ParamKind::Path {
                required: true,
                extension,
            } => format!("path to a .{extension} file (required)"),
            ParamKind::Path {
                required: false,
                extension,
            } => format!("path to a .{extension} file (optional)"),
        }
    }

    /// The default as a value (`None` for required image inputs and for paths).
    pub fn default_value(&self) -> Option<ParamValue> {
        Some(match self.kind {
            ParamKind::Float { default, .. } => ParamValue::Float(default),
            ParamKind::Int { default, .. } => ParamValue::Int(default),
            ParamKind::Bool { default } => ParamValue::Bool(default),
            ParamKind::Choice { default, .. } => ParamValue::Choice(default.to_string()),
            ParamKind::Floats { default, .. } => ParamValue::Floats(default.to_vec()),
            ParamKind::Points { default, .. } => {
                ParamValue::Points(default.chunks_exact(2).map(|p| [p[0], p[1]]).collect())
            }
            ParamKind::Image | ParamKind::Path { .. } | ParamKind::Text | ParamKind::Named => {
                return None
            }
        })
    }

    /// Checks a raw value against the declaration and converts it.
    pub fn check(&self, filter: &str, raw: &RawValue) -> Result<ParamValue> {
        let bad = |message: String| Error::BadParam {
            filter: filter.to_string(),
            param: self.name.to_string(),
            message,
        };
        match (self.kind, raw) {
            (ParamKind::Float { min, max, .. }, RawValue::Number(v)) => {
                // filters take f32: a value that is a bound as f32 (0.01f32 is 0.00999999977 in
                // f64, below a bound of 0.01) is that bound, so no rounding refuses a documented value
                let as_f32 = *v as f32;
                let in_f32 = min as f32 <= as_f32 && as_f32 <= max as f32;
                if !v.is_finite() || !((min..=max).contains(v) || in_f32) {
                    return Err(bad(format!("{v} is out of range [{min}, {max}]")));
                }
                Ok(ParamValue::Float(v.clamp(min, max)))
            }
            (ParamKind::Int { min, max, .. }, RawValue::Number(v)) => {
                if v.fract() != 0.0 {
                    return Err(bad(format!("{v} is not an integer")));
                }
                if *v < min as f64 || *v > max as f64 {
                    return Err(bad(format!("{v} is out of range [{min}, {max}]")));
                }
                Ok(ParamValue::Int(*v as i64))
            }
            (ParamKind::Bool { .. }, RawValue::Text(t)) => match t.as_str() {
                "true" | "yes" | "on" | "1" => Ok(ParamValue::Bool(true)),
                "false" | "no" | "off" | "0" => Ok(ParamValue::Bool(false)),
                _ => Err(bad(format!("`{t}` is not true or false"))),
            },
            (ParamKind::Bool { .. }, RawValue::Number(v)) if *v == 0.0 || *v == 1.0 => {
                Ok(ParamValue::Bool(*v == 1.0))
            }
            (ParamKind::Choice { options, .. }, RawValue::Text(t)) => {
                if options.contains(&t.as_str()) {
                    Ok(ParamValue::Choice(t.clone()))
                } else {
                    Err(bad(format!("`{t}` is not one of {}", options.join(", "))))
                }
            }
            (ParamKind::Floats { default, min, max }, RawValue::List(v)) => {
                if v.len() != default.len() {
                    return Err(bad(format!(
                        "expected {} numbers, got {}",
                        default.len(),
                        v.len()
                    )));
                }
                if let Some(x) = v.iter().find(|x| !x.is_finite() || **x < min || **x > max) {
                    return Err(bad(format!("{x} is out of range [{min}, {max}]")));
                }
                Ok(ParamValue::Floats(v.clone()))
            }
            (ParamKind::Image, RawValue::Text(t)) => Ok(ParamValue::ImagePath(t.clone())),
            (ParamKind::Points { max_points, .. }, RawValue::List(v)) => {
                check_points(v, max_points)
                    .map(ParamValue::Points)
                    .map_err(bad)
            }
            (ParamKind::Path { .. }, RawValue::Text(t)) => {
                if t.is_empty() {
                    return Err(bad("is an empty path".into()));
                }
                Ok(ParamValue::Path(t.clone()))
            }
            (ParamKind::Text, RawValue::Text(t)) => Ok(ParamValue::Text(t.clone())),
            (ParamKind::Named, _) => Err(bad(format!(
                "is no parameter itself: write the value's own name, e.g. amount=0.3, not {}=",
                self.name
            ))),
            (_, raw) => Err(bad(format!("expected {}, got {}", self.describe(), raw))),
        }
    }
}

/// A value as written in a spec, before validation.
#[derive(Clone, Debug, PartialEq)]
pub enum RawValue {
    /// A number.
    Number(f64),
    /// A word or a quoted string.
    Text(String),
    /// A bracketed list of numbers.
    List(Vec<f64>),
}

impl std::fmt::Display for RawValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RawValue::Number(v) => write!(f, "{v}"),
            RawValue::Text(t) => write!(f, "`{t}`"),
            RawValue::List(v) => write!(f, "{v:?}"),
        }
    }
}

/// A validated parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// `ParamKind::Float`.
    Float(f64),
    /// `ParamKind::Int`.
    Int(i64),
    /// `ParamKind::Bool`.
    Bool(bool),
    /// `ParamKind::Choice`.
    Choice(String),
    /// `ParamKind::Floats`.
    Floats(Vec<f64>),
    /// An extra image's path (`ParamKind::Image`).
    ImagePath(String),
    /// Control points `[x, y]`, x strictly increasing.
    Points(Vec<[f64; 2]>),
    /// A file path (`ParamKind::Path`).
    Path(String),
    /// Text (`ParamKind::Text`).
    Text(String),
}

/// A complete, validated argument set for one filter: every declared parameter has a value.
#[derive(Clone, Debug)]
pub struct Args {
    filter: &'static str,
    values: Vec<(&'static str, ParamValue)>,
    /// How many of `values` (the first ones) were given rather than defaulted.
    given: usize,
    /// Other `name=number`s, in the order given, where the filter takes them (`ParamKind::Named`).
    named: Vec<(String, f64)>,
}

impl Args {
    /// Validates named raw values against `def` and fills in defaults. Unknown names get a
    /// suggestion; image parameters may be left out here (the graph layer wires them).
    pub fn resolve(def: &FilterDef, raw: &[(String, RawValue)]) -> Result<Args> {
        let mut values: Vec<(&'static str, ParamValue)> = Vec::new();
        let mut named: Vec<(String, f64)> = Vec::new();
        let takes_named = def
            .params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Named));
        for (name, value) in raw {
            if takes_named && !def.params.iter().any(|p| p.name == name) {
                let bad = |message: String| Error::BadParam {
                    filter: def.name.into(),
                    param: name.clone(),
                    message,
                };
                let RawValue::Number(v) = value else {
                    return Err(bad(format!("expected a number, got {value}")));
                };
                if !v.is_finite() {
                    return Err(bad(format!("{v} is not a finite number")));
                }
                if named.iter().any(|(n, _)| n == name) {
                    return Err(bad("given twice".into()));
                }
                named.push((name.clone(), *v));
                continue;
            }
            let p =
                def.params
                    .iter()
                    .find(|p| p.name == name)
                    .ok_or_else(|| Error::UnknownParam {
                        filter: def.name.to_string(),
                        param: name.clone(),
                        suggestion: nearest(name, def.params.iter().map(|p| p.name)),
                        known: if def.params.is_empty() {
                            "(none)".into()
                        } else {
                            def.params
                                .iter()
                                .map(|p| p.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        },
                    })?;
            if values.iter().any(|(n, _)| *n == p.name) {
                return Err(Error::BadParam {
                    filter: def.name.into(),
                    param: name.clone(),
                    message: "given twice".into(),
                });
            }
            values.push((p.name, p.check(def.name, value)?));
        }
        let given = values.len();
        for p in def.params {
            if !values.iter().any(|(n, _)| *n == p.name) {
                if let Some(d) = p.default_value() {
                    values.push((p.name, d));
                }
            }
        }
        Ok(Args {
            filter: def.name,
            values,
            given,
            named,
        })
    }

    /// Defaults only.
    pub fn defaults(def: &FilterDef) -> Args {
        Args {
            filter: def.name,
            values: def
                .params
                .iter()
                .filter_map(|p| p.default_value().map(|v| (p.name, v)))
                .collect(),
            given: 0,
            named: Vec::new(),
        }
    }

    /// Whether `name` was given (in the spec), rather than left at its default.
    pub fn given(&self, name: &str) -> bool {
        self.values[..self.given].iter().any(|(n, _)| *n == name)
    }

    fn get(&self, name: &str) -> Result<&ParamValue> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| Error::BadParam {
                filter: self.filter.into(),
                param: name.into(),
                message: "missing".into(),
            })
    }
    fn wrong(&self, name: &str) -> Error {
        Error::BadParam {
            filter: self.filter.into(),
            param: name.into(),
            message: "has the wrong type".into(),
        }
    }
    /// A float (or integer) parameter as `f32`.
    pub fn f32(&self, name: &str) -> Result<f32> {
        match self.get(name)? {
            ParamValue::Float(v) => Ok(*v as f32),
            ParamValue::Int(v) => Ok(*v as f32),
            _ => Err(self.wrong(name)),
        }
    }
    /// An integer parameter as `i32`.
    pub fn i32(&self, name: &str) -> Result<i32> {
        match self.get(name)? {
            ParamValue::Int(v) => i32::try_from(*v).map_err(|_| self.wrong(name)),
            _ => Err(self.wrong(name)),
        }
    }
    /// A non-negative integer parameter as `u32`.
    pub fn u32(&self, name: &str) -> Result<u32> {
        match self.get(name)? {
            ParamValue::Int(v) if *v >= 0 => Ok(*v as u32),
            _ => Err(self.wrong(name)),
        }
    }
    /// A boolean parameter.
    pub fn bool(&self, name: &str) -> Result<bool> {
        match self.get(name)? {
            ParamValue::Bool(v) => Ok(*v),
            _ => Err(self.wrong(name)),
        }
    }
    /// A choice parameter's word.
    pub fn choice(&self, name: &str) -> Result<&str> {
        match self.get(name)? {
            ParamValue::Choice(v) => Ok(v),
            _ => Err(self.wrong(name)),
        }
    }
    /// A list parameter as `f32`s.
    pub fn floats(&self, name: &str) -> Result<Vec<f32>> {
        match self.get(name)? {
            ParamValue::Floats(v) => Ok(v.iter().map(|&x| x as f32).collect()),
            _ => Err(self.wrong(name)),
        }
    }
    /// A points parameter's `[x, y]` pairs.
    pub fn points(&self, name: &str) -> Result<Vec<[f64; 2]>> {
        match self.get(name)? {
            ParamValue::Points(v) => Ok(v.clone()),
            _ => Err(self.wrong(name)),
        }
    }
    /// The file given for a path parameter; `None` when an optional one was not given.
    pub fn path(&self, name: &str) -> Result<Option<&str>> {
        match self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v) {
            None => Ok(None),
            Some(ParamValue::Path(p)) => Ok(Some(p)),
            Some(_) => Err(self.wrong(name)),
        }
    }
    /// The text given for a text parameter; `None` when it was not given.
    pub fn text(&self, name: &str) -> Result<Option<&str>> {
        match self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v) {
            None => Ok(None),
            Some(ParamValue::Text(t)) => Ok(Some(t)),
            Some(_) => Err(self.wrong(name)),
        }
    }
    /// The other `name=number`s given to a filter that takes them (`ParamKind::Named`), in
    /// the order given.
    pub fn named(&self) -> &[(String, f64)] {
        &self.named
    }
    /// Image paths given for image parameters, by parameter name.
    pub fn image_paths(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.values.iter().filter_map(|(n, v)| match v {
            ParamValue::ImagePath(p) => Some((*n, p.as_str())),
            _ => None,
        })
    }
}

/// Checks one typed value against a filter's declaration; typed constructors use this so
/// library users get the same range errors as the CLI.
pub fn check_float(def: &FilterDef, name: &str, v: f32) -> Result<f32> {
    let p = def
        .params
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| Error::BadParam {
            filter: def.name.into(),
            param: name.into(),
            message: "not declared".into(),
        })?;
    // The range is checked in f32, the type the value has: a bound such as 0.01 or 0.3 is no f32,
    // and its nearest f32 (or a value that rounds to it, 0.29999999) lies just outside the f64
    // range; within [min as f32, max as f32] the value is in range.
    let v64 = match p.kind {
        ParamKind::Float { min, max, .. }
            if v.is_finite() && min as f32 <= v && v <= max as f32 =>
        {
            (v as f64).clamp(min, max)
        }
        _ => v as f64,
    };
    p.check(def.name, &RawValue::Number(v64))?;
    Ok(v)
}

/// Integer twin of `check_float`.
pub fn check_int(def: &FilterDef, name: &str, v: u32) -> Result<u32> {
    let p = def
        .params
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| Error::BadParam {
            filter: def.name.into(),
            param: name.into(),
            message: "not declared".into(),
        })?;
    p.check(def.name, &RawValue::Number(v as f64))?;
    Ok(v)
}

fn declared<'d>(def: &'d FilterDef, name: &str) -> Result<&'d ParamDef> {
    def.params
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| Error::BadParam {
            filter: def.name.into(),
            param: name.into(),
            message: "not declared".into(),
        })
}

/// Checks any typed value, given as it would be written in a spec, against `def`'s
/// declaration of `name` (the constructors `pixel_filter!` generates use it).
pub fn check_value(def: &FilterDef, name: &str, raw: RawValue) -> Result<()> {
    declared(def, name)?.check(def.name, &raw).map(|_| ())
}

/// The index of `option` among the declared options of the choice `name`.
pub fn choice_index(def: &FilterDef, name: &str, option: &str) -> Result<u32> {
    let p = declared(def, name)?;
    p.check(def.name, &RawValue::Text(option.to_string()))?;
    match p.kind {
        ParamKind::Choice { options, .. } => {
            Ok(options.iter().position(|o| *o == option).unwrap_or(0) as u32)
        }
        _ => Err(Error::BadParam {
            filter: def.name.into(),
            param: name.into(),
            message: "is not a choice".into(),
        }),
    }
}

/// A choice stored as an index, as a spec would write it (an index past the options gives
/// text that `check` rejects with the list of options).
pub fn choice_raw(def: &FilterDef, name: &str, index: u32) -> RawValue {
    let options = match def.params.iter().find(|p| p.name == name).map(|p| p.kind) {
        Some(ParamKind::Choice { options, .. }) => options,
        _ => &[],
    };
    RawValue::Text(
        options
            .get(index as usize)
            .map_or_else(|| format!("#{index}"), |o| o.to_string()),
    )
}

/// Control points as a spec writes them, flat `[x0, y0, x1, y1, ...]`.
pub fn points_raw(points: &[[f64; 2]]) -> RawValue {
    RawValue::List(points.iter().flatten().copied().collect())
}

/// `[x0,y0, x1,y1, ...]` as `[x0,y0, x1,y1]` with the pairs grouped, for messages.
fn format_points(flat: &[f64]) -> String {
    format!(
        "[{}]",
        flat.chunks(2)
            .map(|p| p
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(","))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Flat numbers `[x0, y0, x1, y1, ...]` as 2 to `max_points` control points in [0, 1] with x
/// strictly increasing; the error says what is wrong (the caller names where).
pub fn check_points(flat: &[f64], max_points: usize) -> std::result::Result<Vec<[f64; 2]>, String> {
    if !flat.len().is_multiple_of(2) {
        return Err(format!(
            "expected x,y pairs, got an odd count of numbers ({})",
            flat.len()
        ));
    }
    let points: Vec<[f64; 2]> = flat.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
    if points.len() < 2 {
        return Err(format!("needs at least 2 points, got {}", points.len()));
    }
    if points.len() > max_points {
        return Err(format!(
            "too many points: {} (at most {max_points})",
            points.len()
        ));
    }
    if let Some(v) = flat
        .iter()
        .find(|v| !v.is_finite() || **v < 0.0 || **v > 1.0)
    {
        return Err(format!("{v} is out of range [0, 1]"));
    }
    if let Some(k) = (1..points.len()).find(|&k| points[k][0] <= points[k - 1][0]) {
        return Err(format!(
            "x must increase strictly: point {} has x={} after x={}",
            k + 1,
            points[k][0],
            points[k - 1][0]
        ));
    }
    Ok(points)
}

/// A validated list as a fixed-size array.
pub fn float_array<const N: usize>(def: &FilterDef, name: &str, v: &[f32]) -> Result<[f32; N]> {
    v.try_into().map_err(|_| Error::BadParam {
        filter: def.name.into(),
        param: name.into(),
        message: format!("expected {N} numbers, got {}", v.len()),
    })
}

/// The `fit` parameter of two-input filters (`graph::fit`): how a second image of another size
/// is brought to the input's size.
pub const FIT_OPTIONS: &[&str] = &["none", "stretch", "fill", "fit", "center"];
/// The `fit` parameter's help text.
pub const FIT_DOC: &str = "when the second image's size differs: none = an error; stretch = resized to the input's size; \
fill = scaled to cover it, centre-cropped; fit = scaled to fit inside, centred, transparent borders; center = not scaled, \
centred, cropped or transparent-padded";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_checked_and_grouped() {
        let p = ParamDef::points("rgb", &[0.0, 0.0, 1.0, 1.0], 4, "curve");
        let ok = p
            .check("f", &RawValue::List(vec![0.0, 0.1, 0.5, 0.4, 1.0, 0.9]))
            .unwrap();
        assert_eq!(
            ok,
            ParamValue::Points(vec![[0.0, 0.1], [0.5, 0.4], [1.0, 0.9]])
        );
        let msg = |v: Vec<f64>| p.check("f", &RawValue::List(v)).unwrap_err().to_string();
        assert!(msg(vec![0.0, 0.0, 1.0]).contains("odd count"));
        assert!(msg(vec![0.0, 0.0]).contains("at least 2 points"));
        assert!(msg(vec![0.0; 10]).contains("too many points: 5 (at most 4)"));
        assert!(msg(vec![0.0, 0.0, 1.5, 1.0]).contains("1.5 is out of range"));
        assert!(msg(vec![0.0, 0.0, 0.5, 0.2, 0.5, 1.0])
            .contains("x must increase strictly: point 3 has x=0.5 after x=0.5"));
        assert_eq!(
            p.default_value(),
            Some(ParamValue::Points(vec![[0.0, 0.0], [1.0, 1.0]]))
        );
    }

    #[test]
    fn paths_are_text_and_have_no_default() {
        let p = ParamDef::path("file", true, "cube", "the LUT");
        assert_eq!(
            p.check("f", &RawValue::Text("a.cube".into())).unwrap(),
            ParamValue::Path("a.cube".into())
        );
        assert!(p.check("f", &RawValue::Text(String::new())).is_err());
        assert!(p.check("f", &RawValue::Number(3.0)).is_err());
        assert_eq!(p.default_value(), None);
        assert!(p.describe().contains(".cube file (required)"));
    }
}
