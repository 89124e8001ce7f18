//! 5x5 median (GPUImage has the 3x3 one only; OpenCV's `medianBlur(ksize = 5)`).

crate::stencil_filter! {
    /// Per-channel median of the 5x5 window.
    pub struct Median5x5;
    name: "median_5x5",
    gpuimage: "",
    summary: "Median of each channel over the 5x5 window; replicate borders.",
    doc: "Each of R, G, B and A is the middle of its 25 window values: on the GPU by a comparison network over a block of \
          4 x 2 outputs (sorted columns shared, rows of the column ranks merged from shared pairs, then a selection among \
          the 13 candidates left: 154 min/max per output; RGBA8; Gray8 and the `tile` schedule: forgetful selection \
          per output, 132 compare-exchanges), a sort on the CPU; OpenCV's medianBlur(5) gives the same (it replicates edges too). `median(radius)` runs this for radius 2.",
    size: 5,
    params: {},
    schedules: &["tile", "f16_4x1", "f16_2x2", "f16_4x2", "u32_4x1", "u32_2x2"],
    rgba8: |rec, src, dst, d| super::median_net::record(5, "median_5x5", rec, src, dst, d),
    wgsl: &super::median_wgsl(25),
    cpu: |_f, n| super::median_of(n),
}
