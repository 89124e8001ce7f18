//! GPUImage's `GPUImageKuwaharaRadius3Filter`: the Kuwahara filter at radius 3, which GPUImage
//! unrolls by hand. Here it is `kuwahara` at radius 3 (the same kernel, already specialised per
//! radius) with the Radius3 shader's own tie order: its quadrants are numbered top-left,
//! bottom-left, bottom-right, top-right (GPUImageKuwaharaFilter's go clockwise from top-left),
//! so on an exact tie of variances the two can pick different quadrants.

const RADIUS: u32 = 3;
/// Quadrants (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left) in the order the Radius3
/// shader compares them (its m0, m1, m2, m3).
const RADIUS3_ORDER: [u8; 4] = [0, 3, 2, 1];

/// `kuwahara(radius=3)` with GPUImage's Radius3 tie order.
#[derive(Clone, Debug, Default)]
pub struct KuwaharaRadius3;

crate::kuwahara_filter! {
    filter: KuwaharaRadius3,
    name: "kuwahara_radius3",
    summary: "Kuwahara filter at radius 3 (4x4 quadrants), GPUImage's unrolled variant; opaque.",
    doc: "kuwahara(radius=3) with GPUImageKuwaharaRadius3Filter's tie order (top-left, bottom-left, bottom-right, \
          top-right): the mean of the least varied of the four 4x4 quadrants meeting at the pixel, alpha 255; replicate borders.",
    gpuimage: "GPUImageKuwaharaRadius3Filter",
    params: [],
    build: |_| KuwaharaRadius3,
    uniforms: [],
    radius: |_| RADIUS,
    order: |_| RADIUS3_ORDER,
}
