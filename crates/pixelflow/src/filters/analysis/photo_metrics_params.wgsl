// Uniform of photo_metrics.wgsl (Rust twin: `MetricsParams` in photo_metrics.rs).
struct MetricsParams {
    width: u32,
    height: u32,
    _pad0: u32,
    _pad1: u32,
}
