//! Per-channel maximum over a square window. Matches GPUImage's `GPUImageDilationFilter`
//! (which looks at red only and stops at radius 4); here every channel of RGBA8, or the one
//! of Gray8, is dilated independently, at any radius up to 32 at a cost that barely depends on it.

super::morphology_filter! {
    /// Maximum over a (2r+1)x(2r+1) square, edges replicated.
    pub struct Dilation;
    op: Max,
    name: "dilation",
    gpuimage: "GPUImageDilationFilter",
    summary: "Per-channel maximum over a square (2r+1)x(2r+1) window (grows bright regions).",
    doc: "Radius 1 on RGBA8: one pass (each column's 3-row window in registers, the row maximum from rows buffered in workgroup memory). Otherwise separable: a row maximum then a column maximum, each by the van Herk / Gil-Werman algorithm \
              (three comparisons per pixel and pass whatever the radius; past radius 8 the row pass combines \
              two or four overlapping smaller windows, one or two comparisons more). Edges replicated. RGBA8 (all four channels \
              independently) or Gray8. Exact: GPU and CPU agree bit for bit.",
}
