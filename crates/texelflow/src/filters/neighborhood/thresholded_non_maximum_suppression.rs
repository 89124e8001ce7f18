//! Non-maximum suppression with a threshold. Matches GPUImage's
//! `GPUImageThresholdedNonMaximumSuppressionFilter` (the last stage of its corner detectors).

crate::stencil_filter! {
    /// White where the red channel is the 3x3 maximum (ties to the later pixel) and above the threshold.
    pub struct ThresholdedNonMaximumSuppression;
    name: "thresholded_non_maximum_suppression",
    gpuimage: "GPUImageThresholdedNonMaximumSuppressionFilter",
    summary: "White where a pixel's red channel is its 3x3 window's maximum and reaches the threshold, else black.",
    doc: "The maximum test of `non_maximum_suppression` (strictly above the top, top-left, left and bottom-left \
          neighbours, at least the others), then step(threshold, red): (v, v, v, 1). GPUImage's default threshold 0.9; \
          its corner detectors use 0.2.",
    size: 3,
    params: { threshold: float(0.0, 1.0) = 0.9 => "response at or above which a maximum is kept" },
    wgsl: "let c = n[4].r;
    let later = c >= max(max(n[7].r, n[8].r), max(n[5].r, n[2].r));
    let earlier = c > max(max(n[1].r, n[0].r), max(n[3].r, n[6].r));
    let v = select(0.0, 1.0, later && earlier && c >= p.threshold);
    return vec4<f32>(v, v, v, 1.0);",
    cpu: |f, n| {
        let c = n[4][0];
        let later = [7, 8, 5, 2].iter().all(|&k| c >= n[k][0]);
        let earlier = [1, 0, 3, 6].iter().all(|&k| c > n[k][0]);
        let v = if later && earlier && c >= f.threshold { 1.0 } else { 0.0 };
        [v, v, v, 1.0]
    },
}
