//! 3x3 median: the window of GPUImage's `GPUImageMedianFilter` (which `median` matches, at any
//! radius) and OpenCV's `medianBlur(ksize = 3)`.

crate::stencil_filter! {
    /// Per-channel median of the 3x3 window.
    pub struct Median3x3;
    name: "median_3x3",
    gpuimage: "",
    summary: "Median of each channel over the 3x3 window (removes salt-and-pepper noise); replicate borders.",
    doc: "Each of R, G, B and A is the middle of its nine window values: on the GPU by a comparison network over a block of \
          4 x 2 outputs that shares the sorted columns between neighbours (17.5 min/max per output; RGBA8; Gray8 and the \
          `rows4p` / `rows4` / `tile` schedules: forgetful selection per output, 20 compare-exchanges), a sort on the CPU. OpenCV's medianBlur(3) gives the same (it replicates edges too). `median(radius)` runs this for \
          radius 1.",
    size: 3,
    params: {},
    schedules: &["rows4p", "rows4", "tile", "f16_4x1", "f16_4x4", "f16_4x2", "u32_4x1", "u32_4x4"],
    rgba8: |rec, src, dst, d| super::median_net::record(3, "median_3x3", rec, src, dst, d),
    wgsl: &super::median_wgsl(9),
    cpu: |_f, n| super::median_of(n),
}
