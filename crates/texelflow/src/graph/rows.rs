//! Rows in and out of a run streamed in bands (`Pipeline::run_streamed`): the traits an image
//! is read and written through a band at a time, and their in-memory forms. The file forms
//! (PNG and TIFF by rows, any format whole) are in `crate::io::rows`.

use crate::error::{Error, Result};
use crate::image::{image_bytes, image_bytes_mut, row_bytes, Image, ImageDesc};

/// Rows of an image, in order from the top.
pub trait RowSource: Send {
    /// The decoded image's size and format.
    fn desc(&self) -> ImageDesc;
    /// Fills `dst` with the next `dst.len() / row_bytes(desc)` rows.
    fn read_rows(&mut self, dst: &mut [u8]) -> Result<()>;
    /// What was wrong with the data (a damaged file accepted with `allow_truncated`).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// Whether rows are decoded as they are asked for (false: the file was decoded whole).
    fn streams(&self) -> bool;
}

/// Where rows of an image go, in order from the top.
pub trait RowSink: Send {
    /// The next rows: a band as wide as the image.
    fn write_rows(&mut self, band: &Image) -> Result<()>;
    /// Completes the file and moves it into place (written to a temporary file until then);
    /// returns notes on what was done to the pixels (transparency composited, for JPEG).
    fn finish(self: Box<Self>) -> Result<Vec<String>>;
    /// Whether rows are encoded as they come (false: collected whole, encoded at the end).
    fn streams(&self) -> bool;
}

/// A whole decoded image handed out by rows (owned, or borrowed from the caller).
pub struct ImageRows<'a> {
    image: std::borrow::Cow<'a, Image>,
    next: u32,
    warnings: Vec<String>,
}

impl ImageRows<'static> {
    /// Rows of an owned image.
    pub fn new(image: Image) -> Self {
        Self {
            image: std::borrow::Cow::Owned(image),
            next: 0,
            warnings: Vec::new(),
        }
    }
}

impl<'a> ImageRows<'a> {
    /// With what was wrong with the data it came from (`RowSource::warnings`).
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }
    /// Rows of a borrowed image.
    pub fn borrowed(image: &'a Image) -> Self {
        Self {
            image: std::borrow::Cow::Borrowed(image),
            next: 0,
            warnings: Vec::new(),
        }
    }
}

impl RowSource for ImageRows<'_> {
    fn desc(&self) -> ImageDesc {
        self.image.desc()
    }
    fn read_rows(&mut self, dst: &mut [u8]) -> Result<()> {
        let rb = row_bytes(self.image.desc());
        let start = self.next as usize * rb;
        let src = image_bytes(&self.image)
            .get(start..start + dst.len())
            .ok_or_else(|| Error::internal("rows asked for past the image's end"))?;
        dst.copy_from_slice(src);
        self.next += (dst.len() / rb.max(1)) as u32;
        Ok(())
    }
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    fn streams(&self) -> bool {
        false
    }
}

/// Rows collected into an image in memory (`Pipeline::run_with` streaming an image too large
/// for the GPU in bands); `into_image` once every row is in.
pub struct MemorySink {
    image: Option<Image>,
    desc: ImageDesc,
    next: u32,
}

impl MemorySink {
    /// For an image of `desc` (allocated with the first band).
    pub fn new(desc: ImageDesc) -> Self {
        Self {
            image: None,
            desc,
            next: 0,
        }
    }
    /// The image, once all its rows were written.
    pub fn into_image(self) -> Result<Image> {
        match self.image {
            Some(img) if self.next == self.desc.height => Ok(img),
            _ => Err(Error::invalid(format!(
                "only {} of {} rows were written",
                self.next, self.desc.height
            ))),
        }
    }
}

impl RowSink for MemorySink {
    fn write_rows(&mut self, band: &Image) -> Result<()> {
        let desc = self.desc;
        if band.format() != desc.format || band.width() != desc.width {
            return Err(Error::invalid("a band came out in another format or width"));
        }
        let img = self.image.get_or_insert_with(|| Image::zeroed(desc));
        let start = self.next as usize * row_bytes(desc);
        let src = image_bytes(band);
        image_bytes_mut(img)
            .get_mut(start..start + src.len())
            .ok_or_else(|| Error::internal("rows written past the image's end"))?
            .copy_from_slice(src);
        self.next += band.height();
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
    fn streams(&self) -> bool {
        true
    }
}
