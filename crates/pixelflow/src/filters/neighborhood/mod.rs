//! Neighbourhood filters (GPUImage's "Image processing" group): Gaussian blur, box blur and
//! Sobel edge detection on RGBA8 images. Borders replicate the edge pixel (coordinates are
//! clamped), as GPUImage's clamp-to-edge texture sampling does.
//!
//! Their kernels are specialised per schedule (tile sizes, radius) by substituting the
//! `const` lines marked `// @specialize` in the `.wgsl` files; the files themselves are valid
//! WGSL with default values, so they parse and validate on their own.

pub mod box_blur;
pub mod gaussian_blur;
pub mod sobel_edge_detection;

pub use box_blur::BoxBlur;
pub use gaussian_blur::GaussianBlur;
pub use sobel_edge_detection::SobelEdgeDetection;

use crate::error::{Error, Result};
use crate::registry::FilterDef;

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[&gaussian_blur::DEF, &box_blur::DEF, &sobel_edge_detection::DEF];

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
                if t.strip_prefix("const ").and_then(|r| r.strip_prefix(name)).is_some_and(|r| r.starts_with(':')) {
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
        return Err(Error::Gpu(format!("kernel constant `{}` is declared {} times for specialisation", consts[i].0, found[i])));
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
    let (b, after_begin) = find_line(&begin, 0).ok_or_else(|| Error::Gpu(format!("kernel block `{name}` not found")))?;
    let (e, _) = find_line(&end, b).ok_or_else(|| Error::Gpu(format!("kernel block `{name}` not closed")))?;
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

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(s.contains("load();") && s.contains("new();") && !s.contains("old();"), "{s}");
        assert_eq!(s, "    // @generated-begin f_load\n    load();\n    // @generated-end f_load\n    // @generated-begin f\n    new();\n    // @generated-end f\n");
        assert_eq!(block_body(src, "f_load").unwrap(), "    load();\n");
    }
}
