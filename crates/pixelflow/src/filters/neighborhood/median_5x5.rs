//! 5x5 median (GPUImage has the 3x3 one only; OpenCV's `medianBlur(ksize = 5)`).

crate::stencil_filter! {
    /// Per-channel median of the 5x5 window.
    pub struct Median5x5;
    name: "median_5x5",
    gpuimage: "",
    summary: "Median of each channel over the 5x5 window; replicate borders.",
    doc: "Each of R, G, B and A is the middle of its 25 window values, by forgetful selection (132 compare-exchanges) \
          on the GPU and a sort on the CPU; OpenCV's medianBlur(5) gives the same (it replicates edges too). `median(radius)` runs this for radius 2.",
    size: 5,
    params: {},
    wgsl: &super::median_wgsl(25),
    cpu: |_f, n| super::median_of(n),
}
