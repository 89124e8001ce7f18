//! Fitting a blend's second (or third) image to the first image's size, as graph steps before
//! the blend, so the blend kernel stays the fused per-pixel one (`graph::Fit`); the graph
//! inserts them through `Catalogue::fit`.

use super::{Canvas, Crop, Resize};
use crate::error::{Error, Result};
use crate::graph::{Fit, Graph, Port};

/// `port` (an image) brought to `w` x `h` by `fit`; unchanged when it has that size already,
/// or when `fit` is `None` (the blend then reports the mismatch).
pub fn add_fit(g: &mut Graph, port: Port, (w, h): (u32, u32), fit: Fit) -> Result<Port> {
    let d = g
        .desc(port)
        .image()
        .ok_or_else(|| Error::invalid("fit: the second input is not an image"))?;
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
