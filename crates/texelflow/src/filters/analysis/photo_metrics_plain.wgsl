// photo_metrics.wgsl's hooks for the metrics alone: no fingerprint.
@group(0) @binding(2) var<uniform> u: MetricsParams;

fn fp_pixel(c: vec4<u32>, x: u32, y: u32) {}
fn fp_flush_run() {}
fn fp_finish(lid: u32, first: bool) {}
