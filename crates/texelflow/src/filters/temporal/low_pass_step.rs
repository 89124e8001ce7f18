//! One step of `low_pass`: a frame mixed with the previous average in exact integer
//! arithmetic, so that the running average is the same bits on every GPU and on the CPU, frame
//! after frame, and `motion_detector`'s threshold sees the same average on both. (GPUImage's
//! `GPUImageLowPassFilter` uses a float dissolve blend.)
//!
//! Both images are taken at 16 bits (an 8-bit level v is v * 257, exactly) and
//! `out = (frame * (256 - s) + previous * s + 128) >> 8` with `s = round(strength * 256)`:
//! every product and sum stays below 2^24, so the f32 arithmetic of both sides is exact, and an
//! 8-bit result is never a rounding tie.

crate::pixel_filter! {
    /// `(frame * (256 - s) + previous * s + 128) / 256` at 16 bits, `s = round(strength * 256)`.
    pub struct LowPassStep;
    name: "low_pass_step",
    family: Temporal,
    gpuimage: "GPUImageLowPassFilter",
    summary: "Mixes a frame with a second image (the previous average) in exact integer steps of 1/256.",
    doc: "The step low_pass repeats every frame, with the previous output as the second image: \
(frame * (256 - s) + second * s + 128) / 256, rounded down, on 16-bit levels (8-bit levels times 257), \
with s = round(strength * 256); exact on GPU and CPU alike. All four channels.",
    with: "the previous average",
    params: { strength: float(0.0, 1.0) = 0.5 => "weight of the second image (the previous average)" },
    uniform: |f| { steps: f32 = (f.strength * 256.0).round() },
    wgsl: "let a = round(c * 65535.0);
    let b = round(t * 65535.0);
    return floor((a * (256.0 - p.steps) + b * p.steps + 128.0) / 256.0) / 65535.0;",
    cpu2: |f, c, t, _| {
        let s = (f.strength * 256.0).round();
        std::array::from_fn(|k| (((c[k] * 65535.0).round() * (256.0 - s) + (t[k] * 65535.0).round() * s + 128.0) / 256.0).floor() / 65535.0)
    },
}
