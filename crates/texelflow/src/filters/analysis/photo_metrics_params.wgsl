// Uniform of photo_metrics.wgsl (Rust twin: `MetricsParams` in photo_metrics.rs). The fp_
// fields are the fingerprint's blocks (assess::FingerprintLayout; grid and bits are constants
// of the kernel) in the fused photo_assessment pass, zero for photo_metrics alone.
struct MetricsParams {
    width: u32,
    height: u32,
    fp_rows: u32,
    fp_cols: u32,
    fp_v_step: u32,
    fp_h_step: u32,
    _pad0: u32,
    _pad1: u32,
}
