//! Fitting a blend's second (or third) image to the first image's size, as graph steps before
//! the blend, so the blend kernel stays the fused per-pixel one: `fit=stretch|fill|fit|center`
//! on every two-input filter (`params::FIT_OPTIONS`), read by `Pipeline::parse`.

use crate::error::{Error, Result};
use crate::filters::geometry::{Canvas, Crop, Resize};
use crate::graph::{Graph, Port};

/// How an extra image of another size is brought to the input's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fit {
    /// Sizes must match: a different size is an error.
    #[default]
    None,
    /// Resized (bilinear) to exactly the input's size; the aspect ratio may change.
    Stretch,
    /// Scaled to cover the input, keeping its aspect ratio, then centre-cropped.
    Fill,
    /// Scaled to fit inside the input, keeping its aspect ratio, centred, transparent borders.
    Fit,
    /// Not scaled: centred, cropped where larger and transparent-padded where smaller.
    Center,
}

impl Fit {
    /// From the `fit` parameter's option name.
    pub fn parse(name: &str) -> Result<Fit> {
        Ok(match name {
            "none" => Fit::None,
            "stretch" => Fit::Stretch,
            "fill" => Fit::Fill,
            "fit" => Fit::Fit,
            "center" => Fit::Center,
            other => {
                return Err(Error::BadParam {
                    filter: "blend".into(),
                    param: "fit".into(),
                    message: format!("`{other}` is not one of none, stretch, fill, fit, center"),
                })
            }
        })
    }
}

/// `port` (an image) brought to `w` x `h` by `fit`; unchanged when it has that size already,
/// or when `fit` is `None` (the blend then reports the mismatch).
pub fn add_fit(g: &mut Graph, port: Port, (w, h): (u32, u32), fit: Fit) -> Result<Port> {
    let d = g
        .desc(port)
        .image()
        .ok_or_else(|| Error::Graph("fit: the second input is not an image".into()))?;
    let (iw, ih) = (d.width, d.height);
    if (iw, ih) == (w, h) || fit == Fit::None {
        return Ok(port);
    }
    // the centring offset of a side of `inner` pixels on `outer` (negative: cropped)
    let centre = |outer: u32, inner: u32| ((outer as i64 - inner as i64).div_euclid(2)) as i32;
    let scaled = |s: f64, cover: bool| {
        let side = |n: u32, target: u32| {
            let v = (n as f64 * s).round().max(1.0) as u32;
            // rounding must not leave a gap (fill) or spill over (fit)
            if cover {
                v.max(target)
            } else {
                v.min(target)
            }
        };
        (side(iw, w), side(ih, h))
    };
    let (sx, sy) = (w as f64 / iw as f64, h as f64 / ih as f64);
    match fit {
        Fit::None => Ok(port),
        Fit::Stretch => Ok(g.add1(Resize::to(w, h)?, &[port])?),
        Fit::Fill => {
            let (rw, rh) = scaled(sx.max(sy), true);
            let resized = if (rw, rh) == (iw, ih) {
                port
            } else {
                g.add1(Resize::to(rw, rh)?, &[port])?
            };
            let (x0, y0) = ((rw - w) / 2, (rh - h) / 2);
            Ok(g.add1(Crop::px(x0, y0, w, h)?, &[resized])?)
        }
        Fit::Fit => {
            let (rw, rh) = scaled(sx.min(sy), false);
            let resized = if (rw, rh) == (iw, ih) {
                port
            } else {
                g.add1(Resize::to(rw, rh)?, &[port])?
            };
            Ok(g.add1(Canvas::new(w, h, centre(w, rw), centre(h, rh))?, &[resized])?)
        }
        Fit::Center => Ok(g.add1(Canvas::new(w, h, centre(w, iw), centre(h, ih))?, &[port])?),
    }
}
