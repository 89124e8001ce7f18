//! Chroma-key blend: the second image shows through where the first is near a key colour.
//! Matches GPUImage's `GPUImageChromaKeyBlendFilter`.

use crate::filters::color::chroma_key::crcb;
use crate::filters::shape::pixel::twin::{mix, smoothstep};

crate::pixel_filter! {
    /// `mix(c, t, 1 - smoothstep(threshold, threshold + smoothing, |CrCb(c) - CrCb(color)|))`.
    pub struct ChromaKeyBlend;
    name: "chroma_key_blend",
    family: Blend,
    gpuimage: "GPUImageChromaKeyBlendFilter",
    summary: "Replaces a key colour in the input by the second image (distance in the CrCb plane).",
    doc: "k = 1 - smoothstep(threshold, threshold + smoothing, |CrCb(pixel) - CrCb(color)|) with GPUImage's BT.601 \
          weights; out = mix(input, with, k) on all four channels.",
    with: "the image shown where the input has the key colour",
    params: {
        color: rgb = [0.0, 1.0, 0.0] => "key colour (R, G, B in [0, 1]), green by default",
        threshold: float(0.0, 1.0) = 0.4 => "chroma distance within which the second image replaces the input",
        smoothing: float(0.0, 1.0) = 0.1 => "width of the soft edge beyond the threshold",
    },
    uniform: |f| { key: [f32; 2] = crcb(f.color), threshold: f32 = f.threshold, smoothing: f32 = f.smoothing },
    wgsl: "let y = 0.2989 * c.r + 0.5866 * c.g + 0.1145 * c.b;
    let d = distance(vec2<f32>(0.7132 * (c.r - y), 0.5647 * (c.b - y)), p.key);
    return mix(c, t, 1.0 - smoothstep_safe(p.threshold, p.threshold + p.smoothing, d));",
    cpu2: |f, c, t, _| {
        let key = crcb(f.color);
        let y = 0.2989 * c[0] + 0.5866 * c[1] + 0.1145 * c[2];
        let (dr, db) = (0.7132 * (c[0] - y) - key[0], 0.5647 * (c[2] - y) - key[1]);
        let k = 1.0 - smoothstep(f.threshold, f.threshold + f.smoothing, (dr * dr + db * db).sqrt());
        std::array::from_fn(|i| mix(c[i], t[i], k))
    },
}
