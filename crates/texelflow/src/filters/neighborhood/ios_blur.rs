//! The frosted-glass blur of iOS control centres. Matches GPUImage's `GPUImageiOSBlurFilter`:
//! desaturate, blur at a reduced size, pull luminance towards mid-grey, back to full size.

use crate::filters::color::{LuminanceRange, Saturation};
use crate::filters::geometry::Resize;

use super::GaussianBlur;

crate::composite_filter! {
    /// iOS-style frosted glass.
    pub struct IosBlur;
    name: "ios_blur",
    family: Neighborhood,
    gpuimage: "GPUImageiOSBlurFilter",
    summary: "iOS-style frosted glass: desaturated, strongly blurred at a reduced size, luminance range reduced.",
    doc: "Runs as `resize(scale = 1 / downsampling)`, `saturation(saturation)`, `gaussian_blur(sigma = blur_radius / \
          downsampling)`, `luminance_range(range_reduction)`, then `resize` back to the input's size (bilinear), as \
          GPUImage blurs its downsampled texture and draws it back at full size. GPUImage's defaults: blur radius 12, \
          saturation 0.8, downsampling 4, range reduction 0.6.",
    params: {
        blur_radius: float(0.5, 128.0) = 12.0 => "Gaussian sigma at full size, in pixels (GPUImage's blurRadiusInPixels)",
        saturation: float(0.0, 2.0) = 0.8 => "saturation before the blur (1 unchanged)",
        downsampling: float(1.0, 16.0) = 4.0 => "factor the image is shrunk by for the blur",
        range_reduction: float(0.0, 1.0) = 0.6 => "how far luminance is pulled towards mid-grey after the blur",
    },
    // Three resampling or blurring stages, each within one level of its CPU twin, and the last
    // resize interpolates between samples that may each be a level off.
    tolerance: crate::filters::registry::Tolerance { max_diff: 3, why: "four stages (two resizes, a blur, a range reduction), each within one level of its twin" },
    lower: |f, g, inputs| {
        let input = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`ios_blur` needs an input"))?;
        let (w, h) = g.desc(input).image().map(|d| (d.width, d.height)).ok_or_else(|| crate::Error::invalid("`ios_blur` takes an image"))?;
        let small = g.add(Resize::by(1.0 / f.downsampling)?, inputs)?;
        let grey = g.add(Saturation::new(f.saturation)?, &small)?;
        let sigma = (f.blur_radius / f.downsampling).max(0.1);
        if sigma > 32.0 {
            return Err(crate::Error::invalid(format!("`ios_blur`: blur_radius / downsampling is {sigma}, above the Gaussian's 32; raise downsampling")));
        }
        let blurred = g.add(GaussianBlur::new(sigma)?, &grey)?;
        let flat = g.add(LuminanceRange::new(f.range_reduction)?, &blurred)?;
        g.add(Resize::to(w, h)?, &flat)
    },
}
