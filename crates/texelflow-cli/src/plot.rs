//! Charts to look at rather than read: the RGBY histogram that `analyze --plot` writes (the
//! picture GPUImage's `GPUImageHistogramGenerator` draws, as a labelled chart).
//!
//! Drawn with plotters into an RGB buffer and saved through `Image::save` (written beside the
//! destination, then renamed). Text needs a TrueType font: the first one found among common
//! system fonts (or `TEXELFLOW_FONT`) is used; with none, the chart is drawn without its labels
//! and the caller gets a note saying so.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result};
use plotters::prelude::*;

/// Where a sans-serif font usually is, per system.
const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/noto/NotoSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a system font for plotters once; false when none could be read.
fn font_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        let from_env = std::env::var_os("TEXELFLOW_FONT").map(std::path::PathBuf::from);
        let candidates = from_env
            .into_iter()
            .chain(FONT_CANDIDATES.iter().map(std::path::PathBuf::from));
        for path in candidates {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            // plotters keeps the font for the whole run: leaked once, on purpose
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return true;
            }
        }
        false
    })
}

/// One channel of a histogram plot.
pub struct Series<'a> {
    pub name: &'a str,
    pub bins: &'a [u32; 256],
    pub color: RGBColor,
}

/// The channels' colours: red, green, blue, and dark grey for luma.
pub fn channel_color(name: &str) -> RGBColor {
    match name {
        "r" => RGBColor(220, 40, 40),
        "g" => RGBColor(30, 160, 60),
        "b" => RGBColor(40, 90, 220),
        _ => RGBColor(60, 60, 60),
    }
}

/// The y-axis top: the largest bin of levels 1..254 with a margin, so that a spike of clipped
/// pixels at 0 or 255 does not flatten the rest (a clipped bar is drawn to the top and its
/// share printed in the legend).
fn y_top(series: &[Series<'_>]) -> u32 {
    let inner = series
        .iter()
        .flat_map(|s| s.bins[1..255].iter().copied())
        .max()
        .unwrap_or(0);
    let all = series
        .iter()
        .flat_map(|s| s.bins.iter().copied())
        .max()
        .unwrap_or(0);
    let top = if inner == 0 { all } else { inner + inner / 10 };
    top.max(1)
}

/// Draws `series` as filled, translucent areas over levels 0..255 and saves a PNG (or any
/// format `Image::save` writes) at `path`. Returns a note when no font was found.
pub fn histogram_png(
    series: &[Series<'_>],
    title: &str,
    path: &Path,
    (width, height): (u32, u32),
) -> Result<Option<String>> {
    anyhow::ensure!(
        (320..=8192).contains(&width) && (200..=8192).contains(&height),
        "plot size {width}x{height} is outside 320x200 to 8192x8192"
    );
    let labels = font_ready();
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        draw(&root, series, title, labels)
            .map_err(|e| anyhow::anyhow!("drawing the histogram plot: {e}"))?;
        root.present()
            .map_err(|e| anyhow::anyhow!("drawing the histogram plot: {e}"))?;
    }
    let rgba: Vec<u8> = rgb
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    let img = texelflow::Image::from_u8(width, height, texelflow::PixelFormat::Rgba8, rgba)?;
    img.save(path)
        .with_context(|| format!("writing the plot `{}`", path.display()))?;
    Ok((!labels).then(|| {
        "no TrueType font found (set TEXELFLOW_FONT to a .ttf file): the plot has no labels"
            .to_string()
    }))
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw(
    root: &Area<'_>,
    series: &[Series<'_>],
    title: &str,
    labels: bool,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let top = y_top(series);
    let mut builder = ChartBuilder::on(root);
    builder.margin(12);
    if labels {
        builder
            .caption(title, ("sans-serif", 22))
            .x_label_area_size(36)
            .y_label_area_size(64);
    }
    let mut chart = builder.build_cartesian_2d(0u32..256u32, 0u32..top)?;
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(RGBColor(235, 235, 235)).x_labels(9);
    if labels {
        mesh.x_desc("level").y_desc("pixels");
    } else {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw()?;
    let total: u64 = series
        .first()
        .map(|s| s.bins.iter().map(|&b| b as u64).sum())
        .unwrap_or(0)
        .max(1);
    for s in series {
        let points: Vec<(u32, u32)> = s
            .bins
            .iter()
            .enumerate()
            .flat_map(|(i, &b)| {
                let v = b.min(top);
                [(i as u32, v), (i as u32 + 1, v)]
            })
            .collect();
        let area = AreaSeries::new(points.iter().copied(), 0, s.color.mix(0.18))
            .border_style(s.color.stroke_width(2));
        let drawn = chart.draw_series(area)?;
        if labels {
            let (lo, hi) = (
                s.bins[0] as f64 / total as f64 * 100.0,
                s.bins[255] as f64 / total as f64 * 100.0,
            );
            let name = format!("{}  (clipped {lo:.1}% / {hi:.1}%)", s.name.to_uppercase());
            let color = s.color;
            drawn.label(name).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled())
            });
        }
    }
    if labels {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 15))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn y_top_ignores_clipped_spikes() {
        let mut bins = [10u32; 256];
        bins[0] = 100_000;
        bins[255] = 50_000;
        let s = [Series {
            name: "y",
            bins: &bins,
            color: channel_color("y"),
        }];
        assert_eq!(y_top(&s), 11);
        let zero = [0u32; 256];
        let mut only_clipped = zero;
        only_clipped[255] = 7;
        assert_eq!(
            y_top(&[Series {
                name: "y",
                bins: &only_clipped,
                color: channel_color("y")
            }]),
            7
        );
        assert_eq!(
            y_top(&[Series {
                name: "y",
                bins: &zero,
                color: channel_color("y")
            }]),
            1
        );
    }

    #[test]
    fn plot_is_written_with_the_channel_colours() {
        let dir = std::env::temp_dir().join(format!("texelflow-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h.png");
        let mut r = [0u32; 256];
        for (i, b) in r.iter_mut().enumerate() {
            *b = (i as u32 * 7) % 300 + 1;
        }
        let s = [Series {
            name: "r",
            bins: &r,
            color: channel_color("r"),
        }];
        histogram_png(&s, "test", &path, (640, 360)).unwrap();
        let img = image::open(&path).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (640, 360));
        // the red border line is drawn somewhere
        assert!(img.pixels().any(|p| p.0 == [220, 40, 40]));
        assert!(histogram_png(&s, "test", &path, (10, 10)).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
