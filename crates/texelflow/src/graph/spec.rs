//! The text pipeline spec shared by the CLI and the library:
//!
//! ```text
//! spec  := call ( '|' call )*
//! call  := name [ '(' [ arg ( ',' arg )* ] ')' ]
//! arg   := [ key '=' ] value          (a value without a key fills the next parameter)
//! value := number | '[' number, ... ']' | word | "quoted text"
//! ```
//! e.g. `gaussian_blur(sigma=2) | sobel_edge_detection`, `alpha_blend(with=top.png, mix=0.5)`.
//!
//! A bare word runs until `,` `(` `)` `|` `[` `]` `=` or whitespace. Quoted text may hold
//! any character; inside it `\"` is a quote and `\\` a backslash (no other escapes). Build
//! specs from values you do not control (file names from users) with [`quote`], never by
//! pasting them in: `format!("lut_cube(file={})", quote(path))` is safe for any path.
//! Error columns count characters (not bytes) from 1.

use super::filter::{Catalogue, FilterDef};
use crate::error::{Error, Result};
use crate::graph::params::{Args, ParamKind, RawValue};

/// One parsed call, before validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The filter's name.
    pub name: String,
    /// Arguments in order: `(name, value)`, the name `None` for positional ones.
    pub args: Vec<(Option<String>, RawValue)>,
    /// 1-based column of the name, for messages.
    pub column: usize,
}

/// Quotes `text` as one spec value: wrapped in `"`, with `\` and `"` escaped. The spec
/// parser reads it back as exactly `text`, whatever it holds (`,` `)` `|` `"` spaces,
/// newlines), so `format!("lut_cube(file={})", quote(path))` cannot change the pipeline.
///
/// ```
/// use texelflow::graph::spec::{parse, quote};
/// use texelflow::params::RawValue;
/// let path = r#"a"b\c), x | y.cube"#;
/// let calls = parse(&format!("lut_cube(file={})", quote(path))).unwrap();
/// assert_eq!(calls.len(), 1);
/// assert_eq!(calls[0].args[0].1, RawValue::Text(path.into()));
/// ```
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Lexer<'a> {
    /// 1-based character column of byte offset `at` (the lexer stops only on ASCII bytes or
    /// at the end, so `at` is a character boundary; a lossy count is safe either way).
    fn column_of(&self, at: usize) -> usize {
        String::from_utf8_lossy(&self.s[..at.min(self.s.len())])
            .chars()
            .count()
            + 1
    }
    fn err(&self, message: impl Into<String>) -> Error {
        self.err_at(self.i, message)
    }
    fn err_at(&self, at: usize, message: impl Into<String>) -> Error {
        Error::Spec {
            message: message.into(),
            column: self.column_of(at),
        }
    }
    /// The whole character at the cursor, for messages (not a byte of it).
    fn char_here(&self) -> Option<char> {
        let rest = &self.s[self.i.min(self.s.len())..];
        let end = rest.len().min(4);
        (1..=end).find_map(|n| std::str::from_utf8(&rest[..n]).ok()?.chars().next())
    }
    /// `unexpected X` for the character at the cursor, naming look-alikes of the ASCII
    /// punctuation the grammar uses.
    fn unexpected(&self) -> String {
        match self.char_here() {
            None => "unexpected end".into(),
            Some(c) if c.is_control() => format!("unexpected control character U+{:04X}", c as u32),
            Some(c) if c.is_ascii() => format!("unexpected `{c}`"),
            Some(c) => {
                let like = match c {
                    '｜' | '│' | '¦' | '∣' | '❘' => Some('|'),
                    '（' => Some('('),
                    '）' => Some(')'),
                    '，' | '、' | '‚' => Some(','),
                    '＝' => Some('='),
                    '“' | '”' | '„' | '＂' | '″' => Some('"'),
                    '［' => Some('['),
                    '］' => Some(']'),
                    _ => None,
                };
                match like {
                    Some(a) => format!(
                        "unexpected `{c}` (U+{:04X}, not the ASCII `{a}`: type `{a}`)",
                        c as u32
                    ),
                    None => format!("unexpected `{c}` (U+{:04X})", c as u32),
                }
            }
        }
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ident(&mut self) -> Result<String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(match self.char_here() {
                Some(c) if !c.is_ascii() => self.err(format!(
                    "{}; names are ASCII letters, digits and `_`",
                    self.unexpected()
                )),
                _ => self.err("expected a filter or parameter name"),
            });
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    /// A bare word runs until `,` `)` `|` or whitespace; it may contain `/ . - ~` (paths).
    fn word(&mut self) -> Result<String> {
        self.ws();
        if self.peek() == Some(b'"') {
            let open = self.i;
            self.i += 1;
            let mut w = Vec::new();
            loop {
                match self.s.get(self.i) {
                    None => {
                        return Err(
                            self.err_at(open, "unterminated string: this `\"` has no closing `\"`")
                        )
                    }
                    Some(b'"') => break,
                    Some(b'\\') => match self.s.get(self.i + 1) {
                        Some(&c @ (b'"' | b'\\')) => {
                            w.push(c);
                            self.i += 2;
                        }
                        _ => {
                            return Err(self.err(
                                "unknown escape in quoted text: only `\\\"` (a quote) and \
                                 `\\\\` (a backslash) are escapes; write `\\\\` for one backslash",
                            ))
                        }
                    },
                    Some(&c) => {
                        w.push(c);
                        self.i += 1;
                    }
                }
            }
            self.i += 1;
            return Ok(String::from_utf8_lossy(&w).into_owned());
        }
        let start = self.i;
        while self.i < self.s.len()
            && !matches!(
                self.s[self.i],
                b',' | b')' | b'(' | b'|' | b'[' | b']' | b'='
            )
            && !self.s[self.i].is_ascii_whitespace()
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(self.err("expected a value"));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    fn value(&mut self) -> Result<RawValue> {
        if self.eat(b'[') {
            let mut v = Vec::new();
            if !self.eat(b']') {
                loop {
                    let w = self.word()?;
                    v.push(
                        w.parse::<f64>()
                            .map_err(|_| self.err(format!("`{w}` is not a number")))?,
                    );
                    if self.eat(b']') {
                        break;
                    }
                    if !self.eat(b',') {
                        return Err(self.err("expected `,` or `]` in list"));
                    }
                }
            }
            return Ok(RawValue::List(v));
        }
        let quoted = self.peek() == Some(b'"');
        let w = self.word()?;
        if !quoted {
            if let Ok(n) = w.parse::<f64>() {
                return Ok(RawValue::Number(n));
            }
        }
        Ok(RawValue::Text(w))
    }
}

/// Parses a spec into calls (syntax only).
pub fn parse(spec: &str) -> Result<Vec<Call>> {
    let mut lx = Lexer {
        s: spec.as_bytes(),
        i: 0,
    };
    let mut calls = Vec::new();
    if lx.peek().is_none() {
        return Err(lx.err("empty pipeline"));
    }
    loop {
        lx.ws();
        let column = lx.i + 1;
        let name = lx.ident()?;
        let mut args = Vec::new();
        if lx.eat(b'(') && !lx.eat(b')') {
            loop {
                let save = lx.i;
                // key=value or a positional value
                let key = match lx.ident() {
                    Ok(k) if lx.eat(b'=') => Some(k),
                    _ => {
                        lx.i = save;
                        None
                    }
                };
                args.push((key, lx.value()?));
                if lx.eat(b')') {
                    break;
                }
                if !lx.eat(b',') {
                    return Err(lx.err(format!(
                        "expected `,` or `)`, found {}; quote a value holding spaces or \
                         punctuation: \"a b.png\"",
                        lx.unexpected().trim_start_matches("unexpected ")
                    )));
                }
            }
        }
        calls.push(Call { name, args, column });
        let max = crate::limits::DEFAULT_MAX_NODES;
        if calls.len() > max {
            return Err(Error::Spec {
                message: format!("more than {max} filters (the limit on a graph's nodes)"),
                column,
            });
        }
        match lx.peek() {
            None => break,
            Some(b'|') => {
                lx.i += 1;
            }
            Some(_) => {
                return Err(lx.err(format!("{}; filters are separated by `|`", lx.unexpected())))
            }
        }
    }
    Ok(calls)
}

/// Validates a call against the registry: positional values fill parameters in order.
pub fn resolve(catalogue: &Catalogue, call: &Call) -> Result<(&'static FilterDef, Args)> {
    resolve_with(catalogue, call, true)
}

/// `resolve` for a graph node, whose extra images come from its input ports: image
/// parameters (`with=`) may be left out.
pub fn resolve_node(catalogue: &Catalogue, call: &Call) -> Result<(&'static FilterDef, Args)> {
    resolve_with(catalogue, call, false)
}

fn resolve_with(
    catalogue: &Catalogue,
    call: &Call,
    image_paths_required: bool,
) -> Result<(&'static FilterDef, Args)> {
    let def = catalogue.find(&call.name)?;
    let mut named = Vec::new();
    let mut next = 0usize;
    for (key, value) in &call.args {
        let name = match key {
            Some(k) => k.clone(),
            None => {
                let p = def.params.get(next).ok_or_else(|| Error::BadParam {
                    filter: def.name.into(),
                    param: format!("#{}", next + 1),
                    message: format!(
                        "too many positional values ({} takes {})",
                        def.name,
                        def.params.len()
                    ),
                })?;
                p.name.to_string()
            }
        };
        if let Some(i) = def.params.iter().position(|p| p.name == name) {
            next = i + 1;
        }
        named.push((name, value.clone()));
    }
    let args = Args::resolve(def, &named)?;
    // Every image parameter is a required input (a graph node's come from its ports instead).
    for p in def
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Image) && image_paths_required)
    {
        if !args.image_paths().any(|(n, _)| n == p.name) {
            return Err(Error::BadParam {
                filter: def.name.into(),
                param: p.name.into(),
                message: format!(
                    "is required: an image path, e.g. {}({}=overlay.png)",
                    def.name, p.name
                ),
            });
        }
    }
    for p in def.params {
        if let ParamKind::Path {
            required: true,
            extension,
        } = p.kind
        {
            if args.path(p.name)?.is_none() {
                return Err(Error::BadParam {
                    filter: def.name.into(),
                    param: p.name.into(),
                    message: format!(
                        "is required: a .{extension} file path, e.g. {}({}=file.{extension})",
                        def.name, p.name
                    ),
                });
            }
        }
    }
    Ok((def, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_calls_args_and_lists() {
        let c = parse(" gaussian_blur(sigma=2) | sobel_edge_detection | color_matrix(matrix=[1,0, 2], intensity=.5) | alpha_blend(with=dir/a b.png)").unwrap_err();
        assert!(
            matches!(c, Error::Spec { .. }),
            "space in bare path must be quoted"
        );
        let c = parse("gaussian_blur(sigma=2) | sobel_edge_detection | m(x=[1, 0, 2e1], \"y\") | a(with=\"dir/a b.png\", 3)").unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(
            c[0].args,
            vec![(Some("sigma".into()), RawValue::Number(2.0))]
        );
        assert!(c[1].args.is_empty());
        assert_eq!(c[2].args[0].1, RawValue::List(vec![1.0, 0.0, 20.0]));
        assert_eq!(c[2].args[1], (None, RawValue::Text("y".into())));
        assert_eq!(c[3].args[0].1, RawValue::Text("dir/a b.png".into()));
        assert_eq!(c[3].column, 73);
    }

    /// Issue 29 item 14: any file name survives `quote` and the parser unchanged, and cannot
    /// add a filter or an argument (old code: `"` could not be escaped at all).
    #[test]
    fn quoted_hostile_names_round_trip() {
        for name in [
            "plain.cube",
            "a, b).cube",
            "x | invert",
            "q\"uote\".cube",
            "back\\slash\\",
            "\\\"",
            "\"",
            "",
            "new\nline\ttab",
            "ｕｎｉ｜code ü.cube",
            "lut_cube(file=x) | invert",
            "a=b[1,2]",
        ] {
            let spec = format!("lut_cube(file={}, intensity=0.5) | invert", quote(name));
            let calls = parse(&spec).unwrap_or_else(|e| panic!("{name:?}: {e}"));
            assert_eq!(calls.len(), 2, "{name:?}");
            assert_eq!(calls[0].args.len(), 2, "{name:?}");
            assert_eq!(calls[0].args[0].1, RawValue::Text(name.into()), "{name:?}");
        }
        assert!(matches!(
            parse(r#"a(x="c:\dir")"#),
            Err(Error::Spec { column: 8, .. })
        ));
    }

    /// Issue 29 item 13: non-ASCII is reported as whole characters at character columns
    /// (old code: "unexpected `ï`" at a byte column).
    #[test]
    fn non_ascii_is_reported_by_character() {
        let e = parse("ü(a=\"é\") ｜ invert").unwrap_err();
        assert!(matches!(e, Error::Spec { column: 1, .. }), "{e}");
        let e = parse("brightness(\"é\") ｜ invert").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("`｜` (U+FF5C, not the ASCII `|`"), "{text}");
        assert!(text.ends_with("at column 17"), "{text}");
        assert!(!text.contains('ï'), "{text}");
    }

    #[test]
    fn syntax_errors_have_columns() {
        for bad in [
            "",
            "a(",
            "a(x=)",
            "a b",
            "a(x=[1,2)",
            "|a",
            "a||b",
            "a(x=\"unterminated)",
        ] {
            match parse(bad) {
                Err(Error::Spec { column, .. }) => assert!(column >= 1),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }
}
