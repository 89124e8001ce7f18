//! Neighbourhood filters (GPUImage's "Image processing" group): Gaussian blur, box blur,
//! Sobel edge detection, and the stencil-shape filters (convolution_3x3, laplacian, emboss,
//! sharpen) on RGBA8 images. Borders replicate the edge pixel (coordinates are
//! clamped), as GPUImage's clamp-to-edge texture sampling does.
//!
//! Their kernels are specialised per schedule (tile sizes, radius) with the WGSL templating of
//! `runtime::wgsl_template`; the files themselves are valid WGSL with default values, so they
//! parse and validate on their own.

/// Declares a Kuwahara filter on the one implementation of `kuwahara.rs` (twin `kuwahara_cpu`, kernel
/// `record_kuwahara`): its registry entry and `impl Filter`, given the type, the entry's texts
/// and parameters, and `radius: |f| u32` and `order: |f| [u8; 4]` (quadrants in tie order).
/// `kuwahara` and `kuwahara_radius3` (GPUImage's unrolled variant) are its two filters.
#[macro_export]
macro_rules! kuwahara_filter {
    (
        filter: $Name:ident,
        name: $name:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        gpuimage: $gpuimage:literal,
        params: [ $($param:expr),* $(,)? ],
        build: |$ba:pat_param| $build:expr,
        uniforms: [ $($uni:expr),* $(,)? ],
        radius: |$rf:pat_param| $radius:expr,
        order: |$of:pat_param| $order:expr $(,)?
    ) => {
        /// The filter's registry entry.
        pub static DEF: $crate::filters::registry::FilterDef = $crate::filters::registry::FilterDef {
            name: $name,
            family: $crate::filters::registry::Family::Neighborhood,
            summary: $summary,
            doc: $doc,
            gpuimage: $gpuimage,
            params: &[$($param),*],
            inputs: $crate::filters::registry::IMAGE,
            outputs: $crate::filters::registry::IMAGE,
            tolerance: $crate::filters::registry::EXACT_ENOUGH,
            build: |$ba| Ok(Box::new($build)),
            uniforms: &[$($uni),*],
            test_inputs: None,
            schedules: &[],
        };

        impl $Name {
            fn kuwahara_radius(&self) -> u32 {
                let $rf = self;
                $radius
            }
            fn kuwahara_order(&self) -> [u8; 4] {
                let $of = self;
                $order
            }
        }

        impl $crate::filters::registry::Filter for $Name {
            fn footprint(&self, _inputs: &[$crate::value::ValueDesc]) -> $crate::filters::registry::Footprint {
                $crate::filters::registry::Footprint::Radius(self.kuwahara_radius())
            }
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn output_descs(&self, inputs: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                Ok(vec![$crate::value::ValueDesc::Image($crate::filters::registry::expect_image(
                    &DEF,
                    inputs,
                    0,
                    &[$crate::image::PixelFormat::Rgba8],
                )?)])
            }
            fn run_cpu(&self, inputs: &[&$crate::value::Value], _: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::Value>> {
                let img = $crate::filters::registry::input_image(&DEF, inputs, 0)?;
                Ok(vec![$crate::value::Value::Image($crate::filters::neighborhood::kuwahara::kuwahara_cpu(
                    img,
                    self.kuwahara_radius(),
                    self.kuwahara_order(),
                )?)])
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                $crate::filters::neighborhood::kuwahara::record_kuwahara(rec, &DEF, inputs, outputs, self.kuwahara_radius(), self.kuwahara_order())
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}

/// WGSL of the 8-bit luminance the edge stencils differentiate, `prefix_luma8(c)`: GPUImage's
/// weights (0.2125, 0.7154, 0.0721) on the 8-bit samples, rounded to an integer 0..255 in exact
/// integer arithmetic. GPUImage runs its grayscale pass into an 8-bit texture before these
/// stencils, so its luminance is quantised too; exact integers make the gradients, and the
/// thresholds compared with their squares, identical on GPU and CPU.
macro_rules! luma8_wgsl {
    ($p:literal) => {
        concat!(
            "fn ",
            $p,
            "_luma8(c: vec4<f32>) -> i32 {
    let b = vec3<u32>(round(c.rgb * 255.0));
    return i32((2125u * b.r + 7154u * b.g + 721u * b.b + 5000u) / 10000u);
}"
        )
    };
}

/// CPU twin of `luma8_wgsl!`.
pub(crate) fn luma8(c: [f32; 4]) -> i32 {
    let b = |v: f32| (v * 255.0).round() as u32;
    ((2125 * b(c[0]) + 7154 * b(c[1]) + 721 * b(c[2]) + 5000) / 10000) as i32
}

/// An 8-bit sample of `c` as an integer (`c` holds `b / 255`).
pub(crate) fn byte(v: f32) -> i32 {
    (v * 255.0).round() as i32
}

/// Sobel's gradient of a 3x3 window of integers (`w[k]`, row by row), GPUImage's signs:
/// `(h, v)` with h = -tl - 2t - tr + bl + 2b + br, v = -bl - 2l - tl + br + 2r + tr.
pub(crate) fn sobel(w: [i32; 9]) -> (i32, i32) {
    (
        -w[0] - 2 * w[1] - w[2] + w[6] + 2 * w[7] + w[8],
        -w[6] - 2 * w[3] - w[0] + w[8] + 2 * w[5] + w[2],
    )
}

/// WGSL of `sobel`, `prefix_sobel(w: array<i32, 9>) -> vec2<i32>`.
macro_rules! sobel_wgsl {
    ($p:literal) => {
        concat!(
            "fn ", $p, "_sobel(w: array<i32, 9>) -> vec2<i32> {
    return vec2<i32>(-w[0] - 2 * w[1] - w[2] + w[6] + 2 * w[7] + w[8], -w[6] - 2 * w[3] - w[0] + w[8] + 2 * w[5] + w[2]);
}"
        )
    };
}

/// The smallest squared gradient (in 8-bit units) whose magnitude times `strength` reaches
/// `threshold` (GPUImage's `step(threshold, magnitude * strength)`), computed once on the host
/// so that GPU and CPU compare the same integers; `u32::MAX` where nothing reaches it.
pub(crate) fn squared_threshold(threshold: f32, strength: f32) -> u32 {
    if threshold <= 0.0 {
        return 0;
    }
    if strength <= 0.0 {
        return u32::MAX;
    }
    let t = threshold as f64 * 255.0 / strength as f64;
    (t * t).ceil().min(u32::MAX as f64) as u32
}

/// WGSL body returning the per-channel median of the window `n` of `count` (odd) pixels, by
/// forgetful selection: keep `count / 2 + 2` candidates, drop the smallest and largest (neither
/// can be the median), take the next pixel in, repeat until one is left. Each min-max pass is
/// a tournament (pairs, then the lows' minimum and the highs' maximum), about 1.5 compare-
/// exchanges a candidate: 20 for 3x3, 132 for 5x5, each a `min` and a `max` of four channels.
pub(crate) fn median_wgsl(count: usize) -> String {
    let mut body = String::new();
    for k in 0..count {
        body.push_str(&format!("    var v{k} = n[{k}];\n"));
    }
    let mut live: Vec<usize> = (0..count / 2 + 2).collect();
    let mut next = live.len();
    loop {
        let pairs: Vec<(usize, usize)> = live.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        let (mut lows, mut highs): (Vec<usize>, Vec<usize>) = pairs.iter().copied().unzip();
        if live.len() % 2 == 1 {
            let last = live[live.len() - 1];
            lows.push(last);
            highs.push(last);
        }
        let mut exchanges = pairs.clone();
        exchanges.extend(lows[1..].iter().map(|&x| (lows[0], x)));
        exchanges.extend(
            highs[..highs.len() - 1]
                .iter()
                .map(|&x| (x, highs[highs.len() - 1])),
        );
        for (a, b) in exchanges {
            body.push_str(&format!(
                "    {{ let lo = min(v{a}, v{b}); v{b} = max(v{a}, v{b}); v{a} = lo; }}\n"
            ));
        }
        let (lo, hi) = (lows[0], highs[highs.len() - 1]);
        live.retain(|&x| x != lo && x != hi);
        if next < count {
            live.push(next);
            next += 1;
        }
        if live.len() == 1 {
            break;
        }
    }
    body.push_str(&format!("    return v{};", live[0]));
    body
}

/// CPU twin of `median_wgsl`: each channel's values sorted, the middle one.
pub(crate) fn median_of(n: &[[f32; 4]]) -> [f32; 4] {
    std::array::from_fn(|c| {
        let mut v: Vec<f32> = n.iter().map(|p| p[c]).collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    })
}

/// GPUImage's corner-detector chain around a response stage (Harris, Noble, Shi-Tomasi):
/// `xy_derivative`, `gaussian_blur(blur_radius)`, the response, then
/// `thresholded_non_maximum_suppression(threshold)`.
pub(crate) fn corner_chain(
    g: &mut crate::graph::Graph,
    inputs: &[crate::graph::Port],
    blur_radius: f32,
    response: impl crate::filters::registry::Filter + 'static,
    threshold: f32,
) -> crate::Result<Vec<crate::graph::Port>> {
    let d = g.add(XyDerivative::default(), inputs)?;
    let b = g.add(GaussianBlur::new(blur_radius)?, &d)?;
    let r = g.add(response, &b)?;
    g.add(ThresholdedNonMaximumSuppression::new(threshold)?, &r)
}

#[path = "median_net.rs"]
pub(crate) mod median_net;

include!(concat!(env!("OUT_DIR"), "/filters_neighborhood.rs"));
