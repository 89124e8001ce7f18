// Uniform of histogram_generator_heights.wgsl and histogram_generator_plot.wgsl (GPUImage's
// GPUImageHistogramGenerator). CPU twin: `histogram_generator_cpu` in histogram_generator.rs.
struct HistogramGeneratorParams {
    width: u32,
    height: u32,
    // 0: R, G and B bars; 1: luma (Y) bars in white
    mode: u32,
    // where no bar is, packed RGBA8
    background: u32,
}
