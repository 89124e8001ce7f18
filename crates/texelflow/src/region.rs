//! Parts of images: a rectangle of pixels (`Rect`) and where a part lies in the whole image
//! (`PixelWindow`), shared by the runtime (a kernel's position header), the graph (tiles and
//! bands) and the filters (their windows), so it sits below all of them.

/// A rectangle of an image's pixels: columns `x..x + w`, rows `y..y + h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Rect {
    /// First column.
    pub x: u32,
    /// First row.
    pub y: u32,
    /// Width in pixels.
    pub w: u32,
    /// Height in pixels.
    pub h: u32,
}

impl Rect {
    /// The rectangle of `w` x `h` pixels at `(x, y)`.
    pub const fn new(x: u32, y: u32, w: u32, h: u32) -> Self {
        Self { x, y, w, h }
    }
    /// The whole of a `w` x `h` image.
    pub const fn whole(w: u32, h: u32) -> Self {
        Self { x: 0, y: 0, w, h }
    }
    /// The column after the last.
    pub const fn right(&self) -> u32 {
        self.x + self.w
    }
    /// The row after the last.
    pub const fn bottom(&self) -> u32 {
        self.y + self.h
    }
    /// The rectangle from column `x0` to `x1` and row `y0` to `y1` (ends excluded), clamped to
    /// a `w` x `h` image (empty where nothing is inside).
    pub fn span(x0: i64, y0: i64, x1: i64, y1: i64, (w, h): (u32, u32)) -> Self {
        let (x0, x1) = (x0.clamp(0, w as i64), x1.clamp(0, w as i64));
        let (y0, y1) = (y0.clamp(0, h as i64), y1.clamp(0, h as i64));
        Self {
            x: x0 as u32,
            y: y0 as u32,
            w: (x1 - x0).max(0) as u32,
            h: (y1 - y0).max(0) as u32,
        }
    }
    /// Whether `other` lies inside.
    pub fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.right() <= self.right()
            && other.bottom() <= self.bottom()
    }
}

/// Where a part of an image lies in the whole (images in tiles: `graph/tile.rs`): per-pixel
/// filters that read their position see `x0 + x`, `y0 + y` in a `width` x `height` image, so a
/// tile's vignette is the whole image's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelWindow {
    /// The part's first column in the whole.
    pub x0: u32,
    /// The part's first row in the whole.
    pub y0: u32,
    /// The whole image's width.
    pub width: u32,
    /// The whole image's height.
    pub height: u32,
}

thread_local! {
    /// The window the CPU reference's per-pixel filters run in (`with_window`).
    static WINDOW: std::cell::Cell<Option<PixelWindow>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with the CPU reference's per-pixel filters seeing positions in `window` (the CPU
/// executor's twin of the GPU's `NodeRecorder::pixel_window`).
pub fn with_window<R>(window: Option<PixelWindow>, f: impl FnOnce() -> R) -> R {
    let before = WINDOW.with(|w| w.replace(window));
    let r = f();
    WINDOW.with(|w| w.set(before));
    r
}

/// The window set by the innermost `with_window` on this thread, if any.
pub fn current_window() -> Option<PixelWindow> {
    WINDOW.with(|w| w.get())
}
