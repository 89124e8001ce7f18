//! A numpy array as a texelflow source (`HostImage`): it writes itself in the GPU layout
//! straight into the staging memory it is given, gathering any strides (negative ones, views,
//! Fortran order) and widening one or three channels to four on the way, rows in parallel.
//!
//! | array                                   | texelflow format                               |
//! |-----------------------------------------|------------------------------------------------|
//! | uint8 (h, w) or (h, w, 1)               | Gray8 (RGBA8 with `widen_gray`: grey replicated, alpha 255) |
//! | uint8 (h, w, 3) / (h, w, 4)             | RGBA8 (alpha 255 added to RGB)                 |
//! | uint16 (h, w[, 1 / 3 / 4])              | RGBA16 (grey replicated, alpha 65535 added)    |
//! | float32 (h, w[, 1 / 3 / 4]) in [0, 1]   | RGBA16, rounded to the nearest of 65535 steps, clamped to [0, 1] (no filter reads float RGBA; 16 bits keep 1.5e-5 of precision) |

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use texelflow::graph::host::WriteOnly;
use texelflow::{HostImage, Image, ImageDesc, PixelFormat};

/// Sample type of the array.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sample {
    U8,
    U16,
    F32,
}

impl Sample {
    fn bytes(self) -> isize {
        match self {
            Sample::U8 => 1,
            Sample::U16 => 2,
            Sample::F32 => 4,
        }
    }
}

/// Images at least this large are written by several threads (below it, starting them costs
/// more than the copy).
const PARALLEL_BYTES: usize = 1 << 20;

pub(crate) struct NumpyImage {
    /// The array's first element.
    data: *const u8,
    height: usize,
    width: usize,
    channels: usize,
    /// Byte strides of rows, columns and channels (0 for a 2-D array's channel).
    strides: [isize; 3],
    sample: Sample,
    desc: ImageDesc,
    /// Keeps the array (and so `data`) alive.
    _owner: Py<PyAny>,
    /// The pinned upload buffer the array is exactly the whole of (`Pinned`), if it is one.
    pinned: Option<Py<Pinned>>,
}

/// The base object of an array from `Pipeline.input_array`: a pinned upload buffer
/// (`texelflow::PinnedUpload`) whose persistent mapping the array views. It keeps the buffer
/// (and the device) alive as long as the array or any view of it lives, so the memory stays
/// valid whatever happens to the pipeline that made it.
#[pyclass(frozen, module = "texelflow._texelflow")]
pub(crate) struct Pinned {
    pub(crate) upload: texelflow::PinnedUpload,
}

// SAFETY: `data` points into an array that `_owner` keeps alive for as long as this value
// lives; it is only read, from any thread (the GIL may be released meanwhile: Python code
// writing the same array at that moment gets a torn read of its own data, as with numpy's
// own GIL-free copies, never memory unsafety).
unsafe impl Send for NumpyImage {}
// SAFETY: as `Send`; every method takes `&self` and only reads.
unsafe impl Sync for NumpyImage {}

impl NumpyImage {
    /// Describes `arr` (table in the module docs); `widen_gray` makes a uint8 grey array RGBA8.
    pub(crate) fn new(arr: &Bound<'_, PyUntypedArray>, widen_gray: bool) -> PyResult<Self> {
        let py = arr.py();
        let dtype = arr.dtype();
        let sample = if dtype.is_equiv_to(&numpy::dtype::<u8>(py)) {
            Sample::U8
        } else if dtype.is_equiv_to(&numpy::dtype::<u16>(py)) {
            Sample::U16
        } else if dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
            Sample::F32
        } else {
            return Err(PyValueError::new_err(format!(
                "image arrays must be uint8, uint16 or float32 (native byte order), got {}",
                dtype.str()?
            )));
        };
        let shape = arr.shape();
        let st = arr.strides();
        let (height, width, channels, strides) = match (shape, st) {
            ([h, w], [s0, s1]) => (*h, *w, 1, [*s0, *s1, 0]),
            ([h, w, c], [s0, s1, s2]) if matches!(c, 1 | 3 | 4) => (*h, *w, *c, [*s0, *s1, *s2]),
            _ => return Err(PyValueError::new_err(format!("image arrays must be (height, width) or (height, width, 1|3|4), got shape {shape:?}"))),
        };
        if height == 0 || width == 0 {
            return Err(PyValueError::new_err(format!(
                "image: empty image ({width}x{height})"
            )));
        }
        let side = |v: usize| {
            u32::try_from(v)
                .ok()
                .filter(|&v| v <= texelflow::image::MAX_SIDE)
        };
        let (Some(w), Some(h)) = (side(width), side(height)) else {
            return Err(PyValueError::new_err(format!(
                "image: {width}x{height} is larger than {} pixels on a side",
                texelflow::image::MAX_SIDE
            )));
        };
        let format = match (sample, channels) {
            (Sample::U8, 1) if !widen_gray => PixelFormat::Gray8,
            (Sample::U8, _) => PixelFormat::Rgba8,
            (Sample::U16 | Sample::F32, _) => PixelFormat::Rgba16,
        };
        // SAFETY: the array object is valid (we hold a reference); `data` is its first element
        let data = unsafe { (*arr.as_array_ptr()).fields.data } as *const u8;
        let mut image = Self {
            data,
            height,
            width,
            channels,
            strides,
            sample,
            desc: ImageDesc::new(w, h, format),
            _owner: arr.clone().into_any().unbind(),
            pinned: None,
        };
        image.pinned = image.pinned_base(arr);
        Ok(image)
    }

    /// The `Pinned` buffer behind `arr` when the array covers exactly its image in the GPU
    /// layout (a slice or other view of it is an ordinary array: gathered as usual).
    fn pinned_base(&self, arr: &Bound<'_, PyUntypedArray>) -> Option<Py<Pinned>> {
        // a view's base is the array it was made from (numpy stops collapsing the chain at a
        // base that is not an array): walk to the first base that is not an array
        let mut base = arr.getattr("base").ok()?;
        for _ in 0..64 {
            if base.cast::<PyUntypedArray>().is_err() {
                break;
            }
            base = base.getattr("base").ok()?;
        }
        let pinned = base.cast_into::<Pinned>().ok()?;
        let up = &pinned.get().upload;
        (std::ptr::eq(up.as_ptr(), self.data)
            && up.desc() == self.desc
            && self.rows_as_gpu_layout())
        .then(|| pinned.unbind())
    }

    /// Whether a run on the GPU of this buffer's device uploads it with a GPU copy alone.
    pub(crate) fn is_pinned(&self) -> bool {
        self.pinned.is_some()
    }

    /// The pixels as an `Image` of `desc()` (one copy).
    pub(crate) fn to_image_owned(&self) -> texelflow::Result<Image> {
        let mut bytes = vec![
            0u8;
            self.desc
                .format
                .gpu_bytes(self.desc.width, self.desc.height) as usize
        ];
        self.write_gpu_rows(0, WriteOnly::from_mut(bytes.as_mut_slice()));
        Image::from_gpu_vec(self.desc, bytes)
    }

    /// Whether rows are stored exactly as the GPU layout wants them (same samples, packed,
    /// no padding), so that a run of rows is one copy.
    fn rows_as_gpu_layout(&self) -> bool {
        let same_samples = matches!(
            (self.sample, self.channels, self.desc.format),
            (Sample::U8, 4, PixelFormat::Rgba8)
                | (Sample::U16, 4, PixelFormat::Rgba16)
                | (Sample::U8, 1, PixelFormat::Gray8)
        );
        let row_bytes = self.desc.format.gpu_row_bytes(self.desc.width) as isize;
        same_samples && self.packed_row(0).is_some() && self.strides[0] == row_bytes
    }

    /// Sample `k` of pixel (`row`, `col`), as the array's type.
    ///
    /// # Safety
    /// `row < height`, `col < width`, `k < channels`.
    unsafe fn at(&self, row: usize, col: usize, k: usize) -> *const u8 {
        let offset = row as isize * self.strides[0]
            + col as isize * self.strides[1]
            + k as isize * self.strides[2];
        // SAFETY: in bounds of the array by the caller's contract and numpy's strides
        unsafe { self.data.offset(offset) }
    }

    /// Row `row` as one slice when its samples are packed (the common C-contiguous case).
    fn packed_row(&self, row: usize) -> Option<&[u8]> {
        let size = self.sample.bytes();
        let packed = self.strides[1] == self.channels as isize * size
            && (self.channels == 1 || self.strides[2] == size);
        // SAFETY: row < height; a packed row is `width * channels` consecutive samples
        packed.then(|| unsafe {
            std::slice::from_raw_parts(
                self.at(row, 0, 0),
                self.width * self.channels * size as usize,
            )
        })
    }

    /// Writes row `row` in the GPU layout into `dst` (one row of it), through `scratch`
    /// where it must be converted.
    fn write_row(&self, row: usize, mut dst: WriteOnly<'_, [u8]>, scratch: &mut Vec<u8>) {
        let same_layout = matches!(
            (self.sample, self.channels, self.desc.format),
            (Sample::U8, 4, PixelFormat::Rgba8)
                | (Sample::U16, 4, PixelFormat::Rgba16)
                | (Sample::U8, 1, PixelFormat::Gray8)
        );
        if same_layout {
            if let Some(src) = self.packed_row(row) {
                let pad = dst.len() - src.len();
                let (mut head, mut tail) = dst.split_at(src.len());
                head.copy_from_slice(src);
                if pad > 0 {
                    tail.fill(0);
                }
                return;
            }
        }
        scratch.clear();
        let c = self.channels;
        // SAFETY (every `at` below): row < height, col < width and k < channels
        match (self.sample, self.desc.format) {
            (Sample::U8, PixelFormat::Gray8) => {
                scratch.extend((0..self.width).map(|col| unsafe { *self.at(row, col, 0) }));
                scratch.resize(dst.len(), 0);
            }
            (Sample::U8, _) => {
                for col in 0..self.width {
                    let px = |k: usize| unsafe { *self.at(row, col, k) };
                    scratch.extend_from_slice(&match c {
                        1 => [px(0), px(0), px(0), 255],
                        3 => [px(0), px(1), px(2), 255],
                        _ => [px(0), px(1), px(2), px(3)],
                    });
                }
            }
            (Sample::U16, _) => {
                for col in 0..self.width {
                    let px =
                        |k: usize| unsafe { self.at(row, col, k).cast::<u16>().read_unaligned() };
                    let p = match c {
                        1 => [px(0), px(0), px(0), u16::MAX],
                        3 => [px(0), px(1), px(2), u16::MAX],
                        _ => [px(0), px(1), px(2), px(3)],
                    };
                    scratch.extend(p.iter().flat_map(|s| s.to_le_bytes()));
                }
            }
            (Sample::F32, _) => {
                // NaN becomes 0 (`as` saturates), values outside [0, 1] clamp
                let unorm16 = |v: f32| (v.clamp(0.0, 1.0) * 65535.0).round() as u16;
                for col in 0..self.width {
                    let px = |k: usize| {
                        unorm16(unsafe { self.at(row, col, k).cast::<f32>().read_unaligned() })
                    };
                    let p = match c {
                        1 => [px(0), px(0), px(0), u16::MAX],
                        3 => [px(0), px(1), px(2), u16::MAX],
                        _ => [px(0), px(1), px(2), px(3)],
                    };
                    scratch.extend(p.iter().flat_map(|s| s.to_le_bytes()));
                }
            }
        }
        dst.copy_from_slice(scratch);
    }
}

/// One of the disjoint row ranges of the staging memory, moved to the thread that writes it
/// (`WriteOnly<[u8]>` itself is not `Send`: its `Send` impl covers sized targets only).
struct Disjoint(std::ptr::NonNull<[u8]>);

// SAFETY: each `Disjoint` is the only handle on its bytes while the threads run, exactly like
// a `&mut [u8]` from `split_at_mut`, which is `Send`.
unsafe impl Send for Disjoint {}

impl HostImage for NumpyImage {
    fn desc(&self) -> ImageDesc {
        self.desc
    }

    fn write_gpu_rows(&self, first_row: u32, dst: WriteOnly<'_, [u8]>) {
        let row_bytes = self.desc.format.gpu_row_bytes(self.desc.width) as usize;
        let first_row = first_row as usize;
        // whole rows inside the image, by the trait's contract
        let end = (first_row + dst.len() / row_bytes).min(self.height);
        let contiguous = self.rows_as_gpu_layout();
        // rows in chunks, several per thread so that the threads stay busy to the end
        let rows = end - first_row;
        let rows_per_chunk = if dst.len() < PARALLEL_BYTES {
            rows.max(1)
        } else {
            rows.div_ceil(rayon::current_num_threads() * 4).max(1)
        };
        let mut chunks = Vec::with_capacity(rows.div_ceil(rows_per_chunk));
        let mut rest = dst;
        let mut first = first_row;
        while first < end {
            let n = rows_per_chunk.min(end - first);
            let (mut chunk, tail) = rest.split_at(n * row_bytes);
            chunks.push((first, n, Disjoint(chunk.as_raw_ptr())));
            rest = tail;
            first += n;
        }
        chunks.into_par_iter().for_each(|(first, n, chunk)| {
            // SAFETY: the chunks are disjoint parts of `dst`, which outlives this call
            // (`for_each` returns when every chunk is written); see `Disjoint`
            let mut chunk = unsafe { WriteOnly::new(chunk.0) };
            if contiguous {
                // SAFETY: rows first..first + n are inside the array, and a contiguous array's
                // rows follow each other with no gap (`rows_as_gpu_layout`)
                let src =
                    unsafe { std::slice::from_raw_parts(self.at(first, 0, 0), n * row_bytes) };
                chunk.copy_from_slice(src);
                return;
            }
            let mut scratch = Vec::with_capacity(row_bytes);
            for row in first..first + n {
                let (this, tail) = chunk.split_at(row_bytes);
                self.write_row(row, this, &mut scratch);
                chunk = tail;
            }
        });
    }

    fn to_image(&self) -> texelflow::Result<Image> {
        self.to_image_owned()
    }

    fn pinned(&self) -> Option<&texelflow::PinnedUpload> {
        self.pinned.as_ref().map(|p| &p.get().upload)
    }
}
