//! `texelflow assess`: the photo-assessment tool of the source article (PhotoAssessment: mean
//! saturation, colour fingerprint, sharpness on the GPU) over a folder. Every photo runs one
//! graph (the metrics and the fingerprint, a thumbnail for the report) on one device, several
//! photos in flight so decoding overlaps the GPU; photos come out ranked by score, near-duplicates
//! grouped by fingerprint, failures reported by name without stopping the run.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use texelflow::assess::{
    max_side_size, AssessOptions, Assessment, Fingerprint, FINGERPRINT_OUTPUT, METRICS_OUTPUT,
};
use texelflow::{Backend, Graph, Image};

/// Options of `texelflow assess`.
pub struct Options<'a> {
    pub inputs: &'a [PathBuf],
    pub recursive: bool,
    pub json: bool,
    pub dupes: bool,
    pub dupe_threshold: f64,
    pub report: Option<&'a Path>,
    pub max_side: Option<u32>,
    pub jobs: usize,
}

/// One assessed photo.
pub struct Assessed {
    pub path: PathBuf,
    pub width: u32,
    pub height: u32,
    pub assessment: Assessment,
    pub fingerprint: Fingerprint,
    /// A small JPEG for the report.
    pub thumbnail: Option<Vec<u8>>,
}

/// Longest side of the report's thumbnails.
const THUMB_SIDE: u32 = 240;

/// The graph of one photo: the assessment's nodes, and a thumbnail output for the report.
/// `full` is the photo's own size (upright), which the analysed copy's and the thumbnail's
/// sizes follow whatever size `img` was decoded at (shrink-on-load), so both are the same with
/// `--no-shrink-on-load`.
fn graph_for(
    img: &Image,
    full: (u32, u32),
    max_side: Option<u32>,
    thumbnail: bool,
) -> Result<Graph> {
    let mut g = Graph::new();
    let src = g.source("image", img.desc())?;
    let size = (img.width(), img.height());
    let analysed = match max_side.and_then(|side| max_side_size(full.0, full.1, side)) {
        Some(target) => resize_port(&mut g, src, size, target)?,
        None => src,
    };
    let ports = texelflow::assess::add_assessment(&mut g, analysed, AssessOptions::default())?;
    g.output(METRICS_OUTPUT, ports.metrics)?;
    g.output(FINGERPRINT_OUTPUT, ports.fingerprint)?;
    if thumbnail {
        let t = match max_side_size(full.0, full.1, THUMB_SIDE) {
            Some(target) => resize_port(&mut g, src, size, target)?,
            None => src,
        };
        g.output("thumbnail", t)?;
    }
    Ok(g)
}

/// `image` (of `size`) shrunk to `target`: halvings first (a bilinear resize by exactly one
/// half averages 2×2 blocks, so nothing is skipped), then one bilinear step to the final size.
fn resize_port(
    g: &mut Graph,
    image: texelflow::Port,
    size: (u32, u32),
    target: (u32, u32),
) -> Result<texelflow::Port> {
    use texelflow::filters::geometry::Resize;
    let ((mut w, mut h), (tw, th)) = (size, target);
    let mut port = image;
    // odd sides round up, so a step never shrinks by more than half and skips no pixel
    while w >= 2 * tw && h >= 2 * th {
        (w, h) = (w.div_ceil(2), h.div_ceil(2));
        port = g.add(Resize::new(1.0, w, h)?, &[port])?[0];
    }
    if (w, h) != (tw, th) {
        port = g.add(Resize::new(1.0, tw, th)?, &[port])?[0];
    }
    Ok(port)
}

/// Width and height in pixels.
type Size = (u32, u32);

/// The least size `path` is to be decoded at (`LoadOptions::min_size`; shrink-on-load, issue
/// 30): with `--max-side`, the analysed copy's size, or the report's thumbnail's where that is
/// larger; `None` (the full size) without it or with `--no-shrink-on-load`. Also the header's
/// size, where it could be read.
fn decode_size(path: &Path, o: &Options<'_>) -> (Option<Size>, Option<Size>) {
    let header = texelflow::io::rows::probe(path)
        .ok()
        .map(|d| (d.width, d.height));
    let min_size = match (o.max_side, header) {
        (Some(side), Some((w, h))) if crate::run_options().shrink_on_load => {
            let side = if o.report.is_some() {
                side.max(THUMB_SIDE)
            } else {
                side
            };
            max_side_size(w, h, side)
        }
        _ => None,
    };
    (min_size, header)
}

fn assess_one(be: &Backend, path: &Path, o: &Options<'_>) -> Result<Assessed> {
    let (min_size, header) = decode_size(path, o);
    let img = crate::load_image_at_least(path, min_size)?
        .0
        .convert(texelflow::PixelFormat::Rgba8);
    // the photo's own size: the decoded image's, or where it may have been decoded smaller, the
    // header's (its sides swapped where an EXIF turn made the decoded image the other way up)
    let full = match header {
        Some((w, h)) if min_size.is_some() => {
            let (dw, dh) = (img.width(), img.height());
            if (w > h && dw < dh) || (w < h && dw > dh) {
                (h, w)
            } else {
                (w, h)
            }
        }
        _ => (img.width(), img.height()),
    };
    let g = graph_for(&img, full, o.max_side, o.report.is_some())?;
    let mut r = be.run(&g, &[("image", &img)], &crate::run_options())?;
    let assessment = match r.take(METRICS_OUTPUT) {
        Some(texelflow::Value::Data(d)) => Assessment::from_data(&d)?,
        _ => anyhow::bail!("the assessment graph gave no metrics"),
    };
    let fingerprint = match r.take(FINGERPRINT_OUTPUT) {
        Some(texelflow::Value::Data(texelflow::Data::Fingerprint(f))) => f,
        _ => anyhow::bail!("the assessment graph gave no fingerprint"),
    };
    let thumbnail = match r.take("thumbnail") {
        Some(texelflow::Value::Image(t)) => Some(t.to_jpeg_bytes(82)?),
        _ => None,
    };
    Ok(Assessed {
        path: path.to_path_buf(),
        width: full.0,
        height: full.1,
        assessment,
        fingerprint,
        thumbnail,
    })
}

/// Runs the assessment over `o.inputs`; prints the ranking (text or JSON), writes the report.
pub fn run(be: &Backend, o: &Options<'_>) -> Result<()> {
    let files: Vec<PathBuf> = crate::batch::collect(o.inputs, o.recursive)?
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    anyhow::ensure!(
        !files.is_empty(),
        "no image files found in {}",
        o.inputs
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let bar = ProgressBar::with_draw_target(
        Some(files.len() as u64),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} photos  {per_sec}  eta {eta}  {msg}")
    {
        bar.set_style(style);
    }
    let mut done: Vec<Assessed> = Vec::new();
    let mut failed: Vec<(PathBuf, String)> = Vec::new();
    let t0 = std::time::Instant::now();
    // a photo's failure travels as its message (the stream's own error is for the worker pool)
    texelflow::graph::stream(
        files.iter(),
        |p| Ok(assess_one(be, p, o).map_err(|e| format!("{e:#}"))),
        o.jobs,
        |k, r| {
            // a failure is printed once, in the summary at the end (issue 29, new user)
            match r.map_err(|e| e.to_string()).and_then(|r| r) {
                Ok(a) => done.push(a),
                Err(e) => failed.push((files[k].clone(), e)),
            }
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    let secs = t0.elapsed().as_secs_f64();
    // best first; ties by path, so the order is deterministic
    done.sort_by(|a, b| {
        b.assessment
            .score()
            .total_cmp(&a.assessment.score())
            .then_with(|| a.path.cmp(&b.path))
    });
    let groups = if o.dupes || o.report.is_some() || o.json {
        duplicate_groups(&done, o.dupe_threshold)
    } else {
        Vec::new()
    };
    if done.is_empty() && !o.json {
        // one file: its reason is the one line; several: each once, then the count
        if let [(p, why)] = failed.as_slice() {
            anyhow::bail!("{}", failure(p, why));
        }
        for (p, why) in &failed {
            eprintln!("  failed: {}", failure(p, why));
        }
        anyhow::bail!("no photo could be assessed ({} failed)", failed.len());
    }
    if o.json {
        print_json(&done, &groups, &failed, o.dupes)?;
    } else {
        print_text(&done, &groups, o.dupes);
    }
    if let Some(path) = o.report {
        crate::report::write_html(path, &done, &groups, &failed)
            .with_context(|| format!("writing the report `{}`", path.display()))?;
        if !o.json {
            outln!("report: {}", path.display());
        }
    }
    eprintln!(
        "{} photo(s) assessed in {secs:.2} s ({}), {} failed",
        done.len(),
        be.describe(),
        failed.len()
    );
    for (p, why) in &failed {
        eprintln!("  failed: {}", failure(p, why));
    }
    if done.is_empty() {
        anyhow::bail!("no photo could be assessed ({} failed)", failed.len());
    }
    // as `apply --out-dir`: a run where any file failed exits 1 (issue 29, new user)
    if !failed.is_empty() {
        anyhow::bail!("{} of {} files failed", failed.len(), files.len());
    }
    Ok(())
}

/// A failure as `PATH: why`, or `why` alone where it names the file already.
pub fn failure(path: &Path, why: &str) -> String {
    let name = path.display().to_string();
    if why.contains(&name) {
        why.to_string()
    } else {
        format!("{name}: {why}")
    }
}

/// Indices (into `done`, which is ranked) of near-duplicate groups of two or more photos.
fn duplicate_groups(done: &[Assessed], threshold: f64) -> Vec<Vec<usize>> {
    let prints: Vec<Fingerprint> = done.iter().map(|a| a.fingerprint.clone()).collect();
    texelflow::assess::group_near_duplicates(&prints, threshold)
        .into_iter()
        .filter(|g| g.len() > 1)
        .collect()
}

fn print_text(done: &[Assessed], groups: &[Vec<usize>], dupes: bool) {
    outln!(
        "{:>4} {:>5}  {:>9} {:>8} {:>8} {:>8} {:>7} {:>6}  file",
        "rank",
        "score",
        "sharpness",
        "exposure",
        "contrast",
        "colour",
        "noise σ",
        "clip%"
    );
    for (k, a) in done.iter().enumerate() {
        let s = &a.assessment;
        let sub = s.sub_scores();
        outln!(
            "{:>4} {:>5.1}  {:>9.2} {:>8.2} {:>8.2} {:>8.2} {:>7.2} {:>6.2}  {}",
            k + 1,
            s.score(),
            sub.sharpness,
            sub.exposure,
            sub.contrast,
            sub.colorfulness,
            s.noise_sigma,
            100.0 * (s.clipped_shadows + s.clipped_highlights),
            a.path.display()
        );
    }
    if dupes {
        if groups.is_empty() {
            outln!("no near-duplicates");
        }
        for (n, g) in groups.iter().enumerate() {
            outln!(
                "near-duplicates {}: {}",
                n + 1,
                g.iter()
                    .map(|&i| done[i].path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

fn print_json(
    done: &[Assessed],
    groups: &[Vec<usize>],
    failed: &[(PathBuf, String)],
    _dupes: bool,
) -> Result<()> {
    let photos: Vec<serde_json::Value> = done
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let mut v = assessment_json(&a.assessment);
            v["file"] = serde_json::json!(a.path.display().to_string());
            v["rank"] = serde_json::json!(k + 1);
            v["width"] = serde_json::json!(a.width);
            v["height"] = serde_json::json!(a.height);
            v
        })
        .collect();
    let groups: Vec<Vec<String>> = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|&i| done[i].path.display().to_string())
                .collect()
        })
        .collect();
    let failed: Vec<serde_json::Value> = failed
        .iter()
        .map(|(p, e)| serde_json::json!({ "file": p.display().to_string(), "error": e }))
        .collect();
    let v = serde_json::json!({ "photos": photos, "near_duplicates": groups, "failed": failed });
    outln!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

/// The measures, sub-scores and score of one photo as JSON.
fn assessment_json(s: &Assessment) -> serde_json::Value {
    let sub = s.sub_scores();
    serde_json::json!({
        "score": s.score(),
        "sub_scores": { "sharpness": sub.sharpness, "exposure": sub.exposure, "contrast": sub.contrast, "colorfulness": sub.colorfulness, "noise": sub.noise },
        "tenengrad": s.tenengrad,
        "laplacian_variance": s.laplacian_variance,
        "mean_luma": s.mean_luma,
        "clipped_shadows": s.clipped_shadows,
        "clipped_highlights": s.clipped_highlights,
        "rms_contrast": s.rms_contrast,
        "luma_p1": s.luma_p1,
        "luma_p99": s.luma_p99,
        "dynamic_range": s.dynamic_range(),
        "colorfulness": s.colorfulness,
        "mean_saturation": s.mean_saturation,
        "noise_sigma": s.noise_sigma,
    })
}
