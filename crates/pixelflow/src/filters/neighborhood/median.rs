//! 3x3 median. Matches GPUImage's `GPUImageMedianFilter` (and OpenCV's `medianBlur(ksize = 3)`).

crate::stencil_filter! {
    /// Per-channel median of the 3x3 window.
    pub struct Median;
    name: "median",
    gpuimage: "GPUImageMedianFilter",
    summary: "Median of each channel over the 3x3 window (removes salt-and-pepper noise); replicate borders.",
    doc: "Each of R, G, B and A is the middle of its nine window values, by a selection network (20 compare-exchanges) \
          on the GPU and a sort on the CPU. OpenCV's medianBlur(3) gives the same away from the border (it replicates \
          edges too). Larger windows: `median_5x5`.",
    size: 3,
    params: {},
    wgsl: &super::median_wgsl(9),
    cpu: |_f, n| super::median_of(n),
}
