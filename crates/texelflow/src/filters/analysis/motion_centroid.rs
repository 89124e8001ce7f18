//! The moving pixels of a frame against its running average, as `motion` data: how many moved
//! and where their centroid is. The second half of GPUImage's `GPUImageMotionDetector` (its
//! `GPUImageMotionComparison` shader, then `GPUImageAverageColor`'s mean), the primitive behind
//! `motion_detector`.
//!
//! A pixel moved where the RGB distance between the two images is at least `threshold`
//! (GPUImage's `step(0.2, distance(...))` on colours in 0..1). Here exactly, in integers on
//! both sides: squared distance in 8-bit levels against `threshold2 = ceil((threshold * 255)^2)`.
//! GPUImage averages an 8-bit mask, so its centroid is quantised to 1/255 of the frame; the
//! sums here are exact 64-bit integers.

use crate::error::{Error, Result};
use crate::filters::registry::slot_image;
use crate::graph::params::ParamDef;
use crate::image::{Image, ImageDesc};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, Motion};

const WGSL: &str = include_str!("motion_centroid.wgsl");

uniform_struct! {
    /// Uniform of motion_centroid.wgsl.
    pub struct MotionParams {
        pub width: u32,
        pub height: u32,
        pub threshold2: u32,
    }
}

crate::reduction_filter! {
    /// Counts the pixels whose colour is at least `threshold` away from the running average.
    pub struct MotionCentroid;
    name: "motion_centroid",
    gpuimage: "GPUImageMotionComparison",
    summary: "Counts the pixels that differ from a second image (a running average) and their centroid (motion data).",
    doc: "Two RGBA8 images of one size: a frame and its running average (`low_pass`). A pixel moved where the RGB \
distance between them is at least `threshold` (colours in 0..1; exactly: squared distance in 8-bit levels >= \
ceil((threshold*255)^2)). Output is `motion` data: the moving pixels, the exact sums of their x and y, and the \
frame's size, from which the centroid (0..1 across the frame) and the intensity (share of pixels moving) follow. \
Used by motion_detector.",
    params: {
        threshold: float(0.0, 1.7321) = 0.2 => "RGB distance (colours in 0..1) from the running average at which a pixel counts as moving (GPUImage: 0.2)",
    },
    // the second input as an image parameter, so that a pipeline spec can name it:
    // `motion_centroid(average=mean.png)` (graphs wire it as a port)
    extra_params: [ParamDef::image("average", "the running average to compare with (an image of the frame's size)")],
    inputs: [frame, average],
    formats: [Rgba8],
    outputs: { motion: Motion },
    check: |_, a, b| check_sizes(a, b),
    uniforms: [MotionParams::layout(WGSL)],
    cpu: |f, frame, average| Data::Motion(motion_cpu(frame, average, f.threshold2())),
    gpu_slots: record,
}

impl MotionCentroid {
    /// The squared distance in 8-bit levels at which a pixel moves, `ceil((threshold*255)^2)`
    /// (less a hair, so that 0.2 gives 51^2 despite 0.2's f32 rounding).
    pub fn threshold2(&self) -> u32 {
        (((self.threshold as f64 * 255.0).powi(2) - 1e-3)
            .ceil()
            .max(0.0)) as u32
    }
}

/// The two images are of one size, at most 65535 pixels a side.
fn check_sizes(a: ImageDesc, b: ImageDesc) -> Result<()> {
    if (a.width, a.height) != (b.width, b.height) {
        return Err(Error::invalid(format!(
            "`motion_centroid` needs two images of one size, got {}x{} and {}x{}",
            a.width, a.height, b.width, b.height
        )));
    }
    if a.width > 65535 || a.height > 65535 {
        return Err(Error::invalid(format!(
            "`motion_centroid` takes frames up to 65535 pixels a side, got {}x{}",
            a.width, a.height
        )));
    }
    Ok(())
}

/// CPU twin of `motion_centroid.wgsl`.
pub fn motion_cpu(frame: &Image, average: &Image, threshold2: u32) -> Motion {
    let (w, h) = (frame.width(), frame.height());
    let mut m = Motion {
        width: w,
        height: h,
        ..Motion::default()
    };
    for (i, (a, b)) in frame
        .as_u8()
        .chunks_exact(4)
        .zip(average.as_u8().chunks_exact(4))
        .enumerate()
    {
        let d2: u32 = (0..3)
            .map(|c| (a[c] as i32 - b[c] as i32).pow(2) as u32)
            .sum();
        if d2 >= threshold2 {
            m.moving += 1;
            m.sum_x += (i as u64) % w as u64;
            m.sum_y += (i as u64) / w as u64;
        }
    }
    m
}

/// Records the comparison: one invocation per pixel, the sums added with atomics.
fn record(
    f: &MotionCentroid,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let (Some(frame), Some(average), Some(out)) = (inputs.first(), inputs.get(1), outputs.first())
    else {
        return Err(Error::invalid(
            "`motion_centroid` needs two inputs and one output",
        ));
    };
    let params = MotionParams {
        width: d.width,
        height: d.height,
        threshold2: f.threshold2(),
        ..Default::default()
    };
    let kernel = Kernel::new(
        "analysis.motion_centroid",
        &[MotionParams::WGSL, WGSL],
        "motion_centroid",
    );
    rec.clear(&out.buffer);
    rec.dispatch(
        &kernel,
        &[&frame.buffer, &average.buffer, &out.buffer],
        bytemuck::bytes_of(&params),
        groups_2d(d.width, d.height, 16, 16),
    )
}
