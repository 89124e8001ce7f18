//! The Gray8 schedule of `gaussian_blur` and `box_blur` (GPUImage's
//! `GPUImageSingleComponentGaussianBlurFilter`): one channel, a quarter of RGBA8's bytes. One
//! kernel per blur (`blur_gray.wgsl`): a workgroup's tile of rows is blurred along the rows
//! from the input's bytes into workgroup memory, then down the columns, four pixels (one
//! word) per invocation. The CPU twins are the RGBA8 ones, which take Gray8 too
//! (`blur_cpu`, `box_cpu`). Not measured yet: the tile shape is a guess (see `tile`).

use bytemuck::Zeroable;

use crate::error::{Error, Result};
use crate::filters::registry::UniformLayout;
use crate::image::ImageDesc;
use crate::runtime::uniform::uniform_struct;
use crate::runtime::wgsl_template::specialize;
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};

const WGSL: &str = include_str!("blur_gray.wgsl");
/// vec4s of Gaussian weights: room for the largest kernel (193 taps).
const WEIGHT_VECS: usize = 50;
/// Workgroup memory a tile may use: WebGPU's guaranteed minimum, so every device runs it and
/// an H100 keeps several workgroups per SM. Schedule choice, not measured.
const BUDGET: u64 = 16384;

uniform_struct! {
    /// Uniform of `blur_gray.wgsl`.
    pub struct BlurGrayParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Words (4 pixels) per row.
        pub words: u32,
        /// Gaussian weight `k` at `w[k / 4][k % 4]`.
        pub w: [[f32; 4]; WEIGHT_VECS],
    }
}

/// For the uniform layout test (registered by `gaussian_blur`).
pub const UNIFORM: UniformLayout = BlurGrayParams::layout(WGSL);

/// The tile at radius `r` within `budget` bytes of workgroup memory: words across (`WC`, 4
/// pixels each) and output rows (`TH`); the row pass fills TH + 2r rows of 16 bytes per word.
/// The widest of 16, 8, 4 words that keeps at least 16 output rows (8 at the last), rows a
/// multiple of 8, at most 64.
pub fn tile(r: u32, budget: u64) -> Option<(u32, u32)> {
    for (wc, min_rows) in [(16u32, 16u64), (8, 16), (4, 8)] {
        let rows = budget / (wc as u64 * 16);
        let th = (rows.saturating_sub(2 * r as u64) / 8 * 8).min(64);
        if th >= min_rows {
            return Some((wc, th as u32));
        }
    }
    None
}

/// `entry` ("gauss_gray" or "box_gray") at radius `r` over a Gray8 image.
fn record(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    p: &BlurGrayParams,
    entry: &'static str,
) -> Result<()> {
    let r = p.radius;
    let budget = BUDGET.min(rec.gpu().limits.max_compute_workgroup_storage_size as u64);
    let (wc, th) = tile(r, budget).ok_or_else(|| {
        Error::schedule_unsupported(
            entry,
            format!("no tile fits radius {r} in {budget} bytes of workgroup memory"),
        )
    })?;
    let mut kernel = Kernel::new(
        &format!("blur_gray.r{r}.{wc}x{th}"),
        &[BlurGrayParams::WGSL],
        entry,
    );
    kernel.generated = Some(specialize(WGSL, &[("R", r), ("WC", wc), ("TH", th)])?);
    rec.dispatch(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(p),
        [p.words.div_ceil(wc), d.height.div_ceil(th), 1],
    )
}

/// Gaussian blur of a Gray8 image with the `2 * radius + 1` weights `w`.
pub fn record_gaussian(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    w: &[f32],
) -> Result<()> {
    if w.len() > WEIGHT_VECS * 4 || w.len().is_multiple_of(2) {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            format!("{} weights do not make a gray8 kernel", w.len()),
        ));
    }
    let mut p = BlurGrayParams::zeroed();
    (p.width, p.height, p.radius, p.words) =
        (d.width, d.height, (w.len() / 2) as u32, d.width.div_ceil(4));
    for (k, wk) in w.iter().enumerate() {
        p.w[k / 4][k % 4] = *wk;
    }
    record(rec, input, output, d, &p, "gauss_gray")
}

/// Box blur of radius `r` of a Gray8 image (exact integer sums).
pub fn record_box(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    r: u32,
) -> Result<()> {
    let mut p = BlurGrayParams::zeroed();
    (p.width, p.height, p.radius, p.words) = (d.width, d.height, r, d.width.div_ceil(4));
    record(rec, input, output, d, &p, "box_gray")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tiles_fit_every_radius() {
        for r in 0..=96 {
            let (wc, th) = tile(r, BUDGET).expect("a tile");
            assert!(
                (th as u64 + 2 * r as u64) * wc as u64 * 16 <= BUDGET,
                "r={r}"
            );
            assert!(th >= 8 && th % 8 == 0);
        }
        assert_eq!(tile(6, BUDGET), Some((16, 48)));
    }
}
