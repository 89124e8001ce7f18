//! `assess --report report.html`: one self-contained HTML page (thumbnails embedded as JPEG
//! data URIs) with the photos best first, their score and sub-scores as bars, the failed
//! metrics in words, and the near-duplicate groups side by side.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::assess::Assessed;

/// Standard base64 (RFC 4648, with padding) for data URIs.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Text made safe for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Green for good scores, through amber to red.
fn score_color(score: f64) -> &'static str {
    match score {
        s if s >= 70.0 => "#1b873f",
        s if s >= 45.0 => "#b7791f",
        _ => "#c53030",
    }
}

fn bar(name: &str, value: f64) -> String {
    let pct = (value.clamp(0.0, 1.0) * 100.0).round();
    format!("<div class=m><span>{name}</span><div class=b><i style=\"width:{pct}%\"></i></div><em>{value:.2}</em></div>")
}

fn card(out: &mut String, rank: usize, a: &Assessed) {
    let s = &a.assessment;
    let name = a
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _ = write!(
        out,
        "<figure title=\"{}\">",
        esc(&a.path.display().to_string())
    );
    match &a.thumbnail {
        Some(jpeg) => {
            let _ = write!(
                out,
                "<img src=\"data:image/jpeg;base64,{}\" alt=\"{}\">",
                base64(jpeg),
                esc(&name)
            );
        }
        None => out.push_str("<div class=noimg></div>"),
    }
    let score = s.score();
    let _ = write!(
        out,
        "<figcaption><b style=\"background:{}\">{score:.0}</b> #{rank} {}<br><small>{}×{}</small>",
        score_color(score),
        esc(&name),
        a.width,
        a.height
    );
    let sub = s.sub_scores();
    out.push_str(&bar("sharpness", sub.sharpness));
    out.push_str(&bar("exposure", sub.exposure));
    out.push_str(&bar("contrast", sub.contrast));
    out.push_str(&bar("colour", sub.colorfulness));
    out.push_str(&bar("noise", sub.noise));
    out.push_str("</figcaption></figure>\n");
}

/// Writes the report (`io::output`: atomically, a temporary file beside it, then renamed).
pub fn write_html(
    path: &Path,
    ranked: &[Assessed],
    groups: &[Vec<usize>],
    failed: &[(PathBuf, String)],
) -> Result<()> {
    let mut out = String::new();
    out.push_str(
        "<!doctype html><meta charset=utf-8><title>texelflow assess</title><style>\
body{font:14px system-ui,sans-serif;margin:24px;background:#f7f7f8;color:#222}\
h1{font-size:20px}h2{font-size:16px;margin-top:28px}\
.grid{display:flex;flex-wrap:wrap;gap:14px}\
figure{margin:0;width:250px;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002;overflow:hidden}\
figure img,.noimg{width:250px;height:180px;object-fit:contain;background:#222;display:block}\
figcaption{padding:8px 10px;word-break:break-all}\
figcaption b{color:#fff;border-radius:4px;padding:1px 7px;margin-right:4px}\
.m{display:flex;align-items:center;gap:6px;font-size:12px;margin-top:3px}.m span{width:64px;color:#555}\
.m .b{flex:1;height:7px;background:#e2e2e6;border-radius:4px}.m i{display:block;height:7px;background:#4a6fd8;border-radius:4px}\
.m em{width:32px;text-align:right;font-style:normal;color:#555}\
.dup{border:2px dashed #b7791f;border-radius:10px;padding:10px;margin-bottom:12px}\
</style>\n",
    );
    let _ = write!(out, "<h1>texelflow assess: {} photo(s), best first</h1><p>Score 0–100 (the formula: <code>texelflow help assess</code>); the bars are the sub-scores in [0, 1].</p>\n<div class=grid>\n", ranked.len());
    for (k, a) in ranked.iter().enumerate() {
        card(&mut out, k + 1, a);
    }
    out.push_str("</div>\n");
    if !groups.is_empty() {
        let _ = writeln!(
            out,
            "<h2>Near-duplicates ({} group(s), by colour fingerprint)</h2>",
            groups.len()
        );
        for g in groups {
            out.push_str("<div class=\"dup grid\">");
            for &i in g {
                card(&mut out, i + 1, &ranked[i]);
            }
            out.push_str("</div>\n");
        }
    }
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "<h2>Not assessed ({} file(s))</h2><ul class=failed>",
            failed.len()
        );
        for (p, why) in failed {
            let _ = writeln!(out, "<li>{}</li>", esc(&crate::assess::failure(p, why)));
        }
        out.push_str("</ul>\n");
    }
    // a FIFO or device written into directly, a regular file replaced atomically (`io::output`)
    let options = texelflow::io::output::OutputOptions {
        no_clobber: false,
        special_files: true,
    };
    texelflow::io::output::write_output(path, out.as_bytes(), options)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
