//! 3x3 median: the window of GPUImage's `GPUImageMedianFilter` (which `median` matches, at any
//! radius) and OpenCV's `medianBlur(ksize = 3)`.

crate::stencil_filter! {
    /// Per-channel median of the 3x3 window.
    pub struct Median3x3;
    name: "median_3x3",
    gpuimage: "",
    summary: "Median of each channel over the 3x3 window (removes salt-and-pepper noise); replicate borders.",
    doc: "Each of R, G, B and A is the middle of its nine window values, by a selection network (20 compare-exchanges) \
          on the GPU and a sort on the CPU. OpenCV's medianBlur(3) gives the same (it replicates edges too). `median(radius)` runs this for \
          radius 1.",
    size: 3,
    params: {},
    wgsl: &super::median_wgsl(9),
    cpu: |_f, n| super::median_of(n),
}
