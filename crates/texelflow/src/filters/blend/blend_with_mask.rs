//! Blend with mask: a third image decides, per pixel, how much of the second image replaces
//! the input. No GPUImage equivalent; MetalPetal's `MTIBlendWithMaskFilter` (mix of background
//! and overlay by a mask component, with its "one minus mask value" mode), plus a luminance
//! component because a user's mask is usually a grey PNG.

/// The `channel` choice, in order: luminance, then the mask's components by index + 1.
const CHANNELS: [&str; 5] = ["luminance", "red", "green", "blue", "alpha"];

/// The one-hot vector picking the mask's component (zero for luminance, which the kernel
/// computes with `LUMA_W` instead), so the kernel needs no dynamic index.
fn pick(channel: u32) -> [f32; 4] {
    std::array::from_fn(|k| if channel as usize == k + 1 { 1.0 } else { 0.0 })
}

crate::pixel_filter! {
    /// `out = c (1 - w) + t w` on all four channels, `w` the mask's chosen component (or
    /// `1 - w` with `invert`).
    pub struct BlendWithMask;
    name: "blend_with_mask",
    family: Blend,
    gpuimage: "",
    summary: "Mixes a second image over the input, weighted per pixel by a mask image.",
    doc: "out = input (1 - w) + with w on all four channels (straight alpha), w = the mask's channel: luminance \
          (0.2125 R + 0.7154 G + 0.0721 B, GPUImage's weights; default), red, green, blue or alpha; invert=true uses 1 - w. \
          White in the mask shows `with`, black the input. MetalPetal's MTIBlendWithMaskFilter. A grey (Gray8) mask file is \
          accepted; `fit=` fits both the second image and the mask to the input's size.",
    with: "the overlay image (shown where the mask is white)",
    mask: "the mask image (its chosen channel weights the overlay)",
    params: {
        channel: choice("luminance", "red", "green", "blue", "alpha") = "luminance" => "which component of the mask weights the overlay",
        invert: bool = false => "use one minus the mask value (black shows the overlay)",
    },
    uniform: |f| { pick: [f32; 4] = pick(f.channel), luminance: u32 = (f.channel == 0) as u32, invert: u32 = f.invert as u32 },
    wgsl: "let v = select(dot(m, p.pick), dot(m.rgb, LUMA_W), p.luminance == 1u);
    let w = select(v, 1.0 - v, p.invert == 1u);
    return c * (1.0 - w) + t * w;",
    cpu3: |f, c, t, m, _| {
        let v = match CHANNELS.get(f.channel as usize).copied().unwrap_or("luminance") {
            "red" => m[0],
            "green" => m[1],
            "blue" => m[2],
            "alpha" => m[3],
            _ => crate::filters::shape::pixel::twin::luma(m),
        };
        let w = if f.invert { 1.0 - v } else { v };
        std::array::from_fn(|k| crate::filters::shape::pixel::twin::mix(c[k], t[k], w))
    },
}
