//! Keeping the GPU's clocks up while timing, and showing the clock a case ran at: a spin of
//! arithmetic ahead of each timed submission and a short probe after its runs, both caller
//! kernels of the tracing API (`texelflow::trace::Dispatch`).

use texelflow::extend::Kernel;
use texelflow::trace::{Dispatch, Op, Traced};
use texelflow::{Error, Result};

/// Arithmetic-only kernel that keeps every SM busy: the GPU's clock governor only raises
/// the clocks under sustained load. Measured on the H200 (run 7, nvidia-smi sampled every
/// 250 ms): between cases, while the CPU builds the next case's images, the SM clock fell to
/// 825-1500 MHz, and a 300 ms warm-up of short submissions did not bring it back to 1980 MHz;
/// the same kernel then measured up to 1.3x slower in a later repetition. So each timed
/// submission now starts with ~`SPIN_MS` of this kernel, and ends with a short one whose
/// FLOP rate shows the clock at the end of the measurement.
const SPIN_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> sink: array<f32>;
@group(0) @binding(1) var<uniform> spin: vec4<u32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var a = f32(g.x) * 1e-7;
    var b = a + 0.5;
    var c = a + 0.25;
    var d = a + 0.125;
    for (var i = 0u; i < spin.x; i++) {
        a = fma(a, 0.9999999, 1e-7);
        b = fma(b, 0.9999999, 1e-7);
        c = fma(c, 0.9999999, 1e-7);
        d = fma(d, 0.9999999, 1e-7);
    }
    // never true; keeps the loop from being optimised away
    if (a + b + c + d == -1.0) { sink[0] = a; }
}";
const SPIN_GROUPS: u32 = 4096;
/// Spin ahead of every timed submission, in ms at the calibrated rate.
pub(crate) const SPIN_MS: f64 = 150.0;
/// Iterations of the end-of-run clock probe.
pub(crate) const PROBE_ITERS: u32 = 256;

/// One dispatch of the spin kernel, `iters` iterations long.
pub(crate) fn spin(iters: u32) -> Dispatch {
    let mut kernel = Kernel::new("bench.spin", &[SPIN_WGSL], "main");
    // The loop is bounded by a uniform; wgpu's own loop bound would only add work.
    kernel.checks = None;
    Dispatch {
        kernel,
        // the sink, written never
        scratch: vec![256],
        uniform: bytemuck::bytes_of(&[iters, 0u32, 0, 0]).to_vec(),
        groups: [SPIN_GROUPS, 1, 1],
    }
}

/// FMAs of one spin dispatch of `iters` iterations.
pub(crate) fn spin_fmas(iters: u32) -> f64 {
    SPIN_GROUPS as f64 * 256.0 * 4.0 * iters as f64
}

/// Spin iterations per ms, measured once per process (at whatever clock the GPU has then:
/// the spin only needs to be long enough, not exact), in submissions of `traced` (the
/// first case's graph; only the spin runs).
pub(crate) fn spin_iters_per_ms(traced: &mut Traced<'_>) -> Result<f64> {
    static RATE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    if let Some(r) = RATE.get() {
        return Ok(*r);
    }
    // Start small (a software rasteriser would take minutes at GPU sizes), grow to >= 1 ms.
    let mut iters = 16u32;
    let rate = loop {
        let d = spin(iters);
        let t = traced.submit(&[
            Op::Kernel {
                dispatch: &d,
                timed: false,
            },
            Op::Kernel {
                dispatch: &d,
                timed: true,
            },
        ])?;
        let ms = t
            .first()
            .map(|t| t.ms)
            .ok_or_else(|| Error::Gpu("short timestamp read".into()))?
            .max(1e-4);
        if ms >= 1.0 || iters >= 1 << 24 {
            break iters as f64 / ms;
        }
        iters = (iters as f64 * (2.0 / ms).min(64.0)).ceil() as u32;
    };
    Ok(*RATE.get_or_init(|| rate))
}
