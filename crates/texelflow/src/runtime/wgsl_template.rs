//! WGSL templating for specialised kernels: `const` lines marked `// @specialize` get
//! per-schedule values, `// @generated-begin NAME` .. `// @generated-end NAME` blocks get
//! generated bodies, and loops marked `// @unroll` are unrolled so every index is a literal.
//! The templates themselves stay valid WGSL with default values.

use crate::error::{Error, Result};

/// Replaces the value of each `const NAME: u32 = ...; // @specialize` line of `src`. Every
/// name must be present exactly once (a missing one is a bug in the caller, reported as an
/// error rather than silently compiling the default schedule).
pub(crate) fn specialize(src: &str, consts: &[(&str, u32)]) -> Result<String> {
    let mut found = vec![0usize; consts.len()];
    let mut out = String::with_capacity(src.len() + 64);
    for line in src.lines() {
        let t = line.trim_start();
        let mut replaced = false;
        if t.starts_with("const ") && t.contains("// @specialize") {
            for (i, (name, value)) in consts.iter().enumerate() {
                if t.strip_prefix("const ")
                    .and_then(|r| r.strip_prefix(name))
                    .is_some_and(|r| r.starts_with(':'))
                {
                    out.push_str(&format!("const {name}: u32 = {value}u; // @specialize\n"));
                    found[i] += 1;
                    replaced = true;
                    break;
                }
            }
        }
        if !replaced {
            out.push_str(line);
            out.push('\n');
        }
    }
    if let Some(i) = found.iter().position(|&n| n != 1) {
        return Err(Error::Gpu(format!(
            "kernel constant `{}` is declared {} times for specialisation",
            consts[i].0, found[i]
        )));
    }
    Ok(out)
}

/// Byte range of the body between the `// @generated-begin NAME` and `// @generated-end NAME`
/// lines of `src`. The markers are whole lines (after indentation), so `NAME` is not matched by
/// a block whose name merely starts with it.
fn block_span(src: &str, name: &str) -> Result<(usize, usize)> {
    let begin = format!("// @generated-begin {name}");
    let end = format!("// @generated-end {name}");
    // byte offset of the first line that is `marker` after indentation, from `from`, and of
    // the line's start
    let find_line = |marker: &str, from: usize| -> Option<(usize, usize)> {
        let mut at = from;
        for line in src[from..].split_inclusive('\n') {
            if line.trim() == marker {
                return Some((at + (line.len() - line.trim_start().len()), at + line.len()));
            }
            at += line.len();
        }
        None
    };
    let (b, after_begin) = find_line(&begin, 0)
        .ok_or_else(|| Error::Gpu(format!("kernel block `{name}` not found")))?;
    let (e, _) = find_line(&end, b)
        .ok_or_else(|| Error::Gpu(format!("kernel block `{name}` not closed")))?;
    // the end marker's indentation stays with it
    let e = src[..e].rfind('\n').map_or(0, |n| n + 1).max(after_begin);
    Ok((after_begin, e))
}

/// Replaces the body between `// @generated-begin NAME` and `// @generated-end NAME` lines.
pub(crate) fn replace_block(src: &str, name: &str, body: &str) -> Result<String> {
    let (a, e) = block_span(src, name)?;
    Ok(format!("{}{}{}", &src[..a], body, &src[e..]))
}

/// The body between `// @generated-begin NAME` and `// @generated-end NAME` lines of `src`
/// (fragments kept in a `.wgsl` file of their own, like box_blur_blocks.wgsl).
pub(crate) fn block_body<'a>(src: &'a str, name: &str) -> Result<&'a str> {
    let (a, e) = block_span(src, name)?;
    Ok(&src[a..e])
}

/// Unrolls every loop of `src` written as `for (var X = A; X < B; X++) { // @unroll` (or
/// `X += S`), up to the `}` line at the loop's own indentation: the body is repeated once per
/// value, each copy in its own `{ }` block, with the identifier `X` replaced by the value as a
/// `u32` literal. `A`, `B` and `S` are integer literals or names from `consts` (the
/// specialised constants). Nested marked loops are unrolled too (the inner bounds may then be
/// literals only after the outer substitution, e.g. `i < CH`).
///
/// Why: NVIDIA's Vulkan compiler put every private array of the box blur walk in local
/// memory (464 bytes per invocation, `bench --shader-stats`, H200), although each index is a
/// constant once the loops are unrolled; with literal indices the arrays are plain values.
pub(crate) fn unroll(src: &str, consts: &[(&str, u32)]) -> Result<String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::with_capacity(src.len() * 2);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some(head) = line.trim_end().strip_suffix("// @unroll") else {
            out.push_str(line);
            out.push('\n');
            i += 1;
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let bad = || {
            Error::Gpu(format!(
                "kernel loop marked @unroll is not `for (var X = A; X < B; X++) {{`: `{}`",
                line.trim()
            ))
        };
        let spec = head
            .trim()
            .strip_prefix("for (var ")
            .and_then(|r| r.trim_end().strip_suffix(") {"))
            .ok_or_else(bad)?;
        let parts: Vec<&str> = spec.split(';').map(str::trim).collect();
        let [init, cond, step] = parts[..] else {
            return Err(bad());
        };
        let (var, a) = init
            .split_once('=')
            .map(|(v, a)| (v.trim(), a.trim()))
            .ok_or_else(bad)?;
        let b = cond
            .strip_prefix(var)
            .and_then(|c| c.trim().strip_prefix('<'))
            .map(str::trim)
            .ok_or_else(bad)?;
        let s = if step == format!("{var}++") {
            "1"
        } else {
            step.strip_prefix(var)
                .and_then(|c| c.trim().strip_prefix("+="))
                .map(str::trim)
                .ok_or_else(bad)?
        };
        let value = |t: &str| -> Result<u32> {
            let t = t.trim_end_matches('u');
            t.parse::<u32>()
                .ok()
                .or_else(|| consts.iter().find(|(n, _)| *n == t).map(|&(_, v)| v))
                .ok_or_else(bad)
        };
        let (a, b, s) = (value(a)?, value(b)?, value(s)?);
        if s == 0 {
            return Err(bad());
        }
        // the body: up to the `}` line at the loop's indentation
        let close = format!("{indent}}}");
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].trim_end() == close)
            .ok_or_else(|| {
                Error::Gpu(format!(
                    "kernel loop marked @unroll is not closed: `{}`",
                    line.trim()
                ))
            })?;
        let body = lines[i + 1..end].join("\n");
        let mut v = a;
        while v < b {
            out.push_str(indent);
            out.push_str("{\n");
            let copy = replace_ident(&body, var, &format!("{v}u"));
            out.push_str(&unroll(&copy, consts)?);
            out.push_str(indent);
            out.push_str("}\n");
            v += s;
        }
        i = end + 1;
    }
    Ok(out)
}

/// `src` with every whole-word occurrence of the identifier `name` replaced by `with`.
fn replace_ident(src: &str, name: &str, with: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(k) = rest.find(name) {
        let before = rest[..k].chars().next_back();
        let after = rest[k + name.len()..].chars().next();
        out.push_str(&rest[..k]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(name);
        } else {
            out.push_str(with);
        }
        rest = &rest[k + name.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn unroll_repeats_marked_loops_with_literal_indices() {
        let src = "fn f() {\n    for (var c = 0u; c < LB; c += CH) { // @unroll\n        for (var i = 0u; i < CH; i++) { // @unroll\n            a[c + i] = b[i] + ci;\n        }\n    }\n    for (var k = 0u; k < 2u; k++) {\n        x(k);\n    }\n}\n";
        let s = unroll(src, &[("LB", 4), ("CH", 2)]).unwrap();
        for (c, i) in [(0, 0), (0, 1), (2, 0), (2, 1)] {
            assert!(
                s.contains(&format!("a[{c}u + {i}u] = b[{i}u] + ci;")),
                "{s}"
            );
        }
        assert_eq!(s.matches("a[").count(), 4, "{s}");
        // unmarked loops stay loops; the identifier `ci` is not taken for `c` or `i`
        assert!(s.contains("for (var k = 0u; k < 2u; k++) {"), "{s}");
        // bad markers are errors, not silently rolled loops
        assert!(unroll(
            "    for (var c = 0u; c <= 4u; c++) { // @unroll\n    }\n",
            &[]
        )
        .is_err());
        assert!(unroll(
            "    for (var c = 0u; c < N; c++) { // @unroll\n    }\n",
            &[]
        )
        .is_err());
        assert!(unroll("    for (var c = 0u; c < 4u; c++) { // @unroll\n", &[]).is_err());
    }
    #[test]
    fn specialize_replaces_marked_constants_only() {
        let src = "const A: u32 = 1u; // @specialize\nconst AB: u32 = 2u; // @specialize\nconst A2: u32 = 3u;\n";
        let s = specialize(src, &[("A", 7), ("AB", 9)]).unwrap();
        assert!(s.contains("const A: u32 = 7u;"));
        assert!(s.contains("const AB: u32 = 9u;"));
        assert!(s.contains("const A2: u32 = 3u;"));
        assert!(specialize(src, &[("C", 1)]).is_err());
    }
    #[test]
    fn replace_block_swaps_the_body() {
        let src = "fn f() {\n    // @generated-begin f\n    old();\n    // @generated-end f\n}\n";
        let s = replace_block(src, "f", "    new();\n").unwrap();
        assert!(s.contains("new();") && !s.contains("old();"));
        assert!(replace_block(src, "g", "").is_err());
        // a block whose name starts with another's is not taken for it
        let src = "    // @generated-begin f_load\n    load();\n    // @generated-end f_load\n    // @generated-begin f\n    old();\n    // @generated-end f\n";
        let s = replace_block(src, "f", "    new();\n").unwrap();
        assert!(
            s.contains("load();") && s.contains("new();") && !s.contains("old();"),
            "{s}"
        );
        assert_eq!(s, "    // @generated-begin f_load\n    load();\n    // @generated-end f_load\n    // @generated-begin f\n    new();\n    // @generated-end f\n");
        assert_eq!(block_body(src, "f_load").unwrap(), "    load();\n");
    }
}
