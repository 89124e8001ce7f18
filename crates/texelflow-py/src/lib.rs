//! `texelflow._texelflow`: the native half of the Python package (the Python half,
//! `python/texelflow/__init__.py`, checks arguments, shapes results to the input's layout and
//! documents the API).
//!
//! Images cross the boundary without intermediate copies: an input array is gathered (any
//! strides, three channels widened to four) straight into the GPU's upload staging memory
//! (`array::NumpyImage`, a `texelflow::HostImage`), and an output image is returned as a numpy
//! array over the mapped read-back memory itself (`Mapped`, the array's base object), which
//! goes back to the device's pool when the array is freed. An array from
//! `Pipeline.input_array` is itself an upload staging buffer (`array::Pinned`, a
//! `texelflow::PinnedUpload`): its upload is the GPU's copy alone. The GIL is released while
//! the GPU works.

mod array;
#[cfg(target_os = "linux")]
mod cuda;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use numpy::ndarray::{ArrayView, IxDyn, ShapeBuilder};
use numpy::{Element, PyArrayDyn, PyUntypedArray};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use texelflow::{
    Backend, Data, GpuOptions, HostRunResult, HostValue, Image, ImageDesc, MappedImage,
    PixelFormat, RunOptions, Value,
};

use array::{NumpyImage, Pinned};

/// The same one-line message as the CLI, as the matching Python exception: bad specs,
/// parameters, graphs and images are `ValueError`, unreadable files `OSError`, device
/// problems `RuntimeError`.
fn py_err(e: texelflow::Error) -> PyErr {
    use texelflow::Error as E;
    let message = match &e {
        // the library's message advises the CLI's `--cpu`: here, the device argument
        E::TooLarge {
            width,
            height,
            bytes,
            limit,
        } => format!("image of {width}x{height} needs {bytes} bytes per buffer but this GPU allows at most {limit} bytes per binding and this pipeline cannot run in tiles (a reduction whose partials do not merge, a whole-image read, or a change of size that does not tile); use device=\"cpu\" or a smaller image"),
        _ => e.to_string(),
    };
    match e {
        // a defect of texelflow, not of the caller's input
        E::Graph(texelflow::GraphError::Internal(_)) => PyRuntimeError::new_err(message),
        E::UnknownFilter { .. }
        | E::UnknownParam { .. }
        | E::BadParam { .. }
        | E::Spec { .. }
        | E::Graph(_)
        | E::Image(_)
        | E::TooLarge { .. }
        | E::Limit(_)
        | E::Kernel(_)
        | E::StencilKernel(_)
        | E::SameFile { .. } => PyValueError::new_err(message),
        E::ImageIo { .. } | E::BadFile { .. } | E::Video(_) => PyOSError::new_err(message),
        E::OutputExists { .. } => pyo3::exceptions::PyFileExistsError::new_err(message),
        E::OutputClosed { .. } => pyo3::exceptions::PyBrokenPipeError::new_err(message),
        E::Batch(
            texelflow::BatchError::CreateFolder { .. }
            | texelflow::BatchError::WriteFolder { .. }
            | texelflow::BatchError::ReadFolder { .. },
        ) => PyOSError::new_err(message),
        E::Batch(texelflow::BatchError::WorkerPanicked) => PyRuntimeError::new_err(message),
        E::Batch(_) => PyValueError::new_err(message),
        E::Output { .. } => PyOSError::new_err(message),
        E::NoAdapter(_) | E::Gpu(_) | E::DeviceLost(_) => PyRuntimeError::new_err(message),
        E::BadDevice(_) => PyValueError::new_err(message),
        // a step's failure: as its cause, with the step named in the message
        E::InStep { source, .. } if source.is_gpu_failure() => PyRuntimeError::new_err(message),
        E::InStep { .. } => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// Opened devices by (device, backend, adapter): opening one takes hundreds of ms, and
/// sharing it shares its compiled kernels and buffer pools between pipelines.
type BackendKey = (String, Option<String>, Option<String>);
/// A backend and the note of its fallback to the CPU, if it is one.
type Opened = (Backend, Option<String>);
static BACKENDS: OnceLock<Mutex<HashMap<BackendKey, Opened>>> = OnceLock::new();

/// The backend for `device` ("auto": the best GPU, else the CPU reference with a note;
/// "gpu": a GPU or an error; "cpu": the CPU reference), and the note of a fallback.
fn backend_for(device: &str, backend: Option<String>, adapter: Option<String>) -> PyResult<Opened> {
    if !matches!(device, "auto" | "gpu" | "cpu") {
        return Err(PyValueError::new_err(format!(
            "device `{device}`: use \"auto\", \"gpu\" or \"cpu\""
        )));
    }
    if device == "cpu" {
        return Ok((Backend::Cpu, None));
    }
    let key = (device.to_string(), backend.clone(), adapter.clone());
    let cache = BACKENDS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache
        .lock()
        .map_err(|_| PyRuntimeError::new_err("device cache poisoned"))?;
    if let Some(found) = cache.get(&key) {
        return Ok(found.clone());
    }
    let opts = gpu_options(backend, adapter);
    let opened = match device {
        "gpu" => (Backend::gpu(&opts).map_err(py_err)?, None),
        _ => match Backend::auto_choice(&opts) {
            (b, Ok(c)) if c.index.is_some() => (b, None),
            (b, Ok(c)) => match c.reason {
                texelflow::device::ChoiceReason::OnlySoftware(_) => (
                    b,
                    Some(format!(
                        "{}; device=\"gpu\" or adapter= runs on it",
                        c.reason
                    )),
                ),
                r => (b, Some(r.to_string())),
            },
            (b, Err(e)) => (
                b,
                Some(format!(
                    "{e}; running on the CPU reference implementation instead"
                )),
            ),
        },
    };
    cache.insert(key, opened.clone());
    Ok(opened)
}

/// The base object of an output array: the mapped read-back buffer it views, unmapped and
/// returned to the pool when the array (and every view of it) is gone.
#[pyclass(frozen, module = "texelflow._texelflow")]
struct Mapped {
    image: MappedImage,
}

/// The base object of an output array of a CPU run: the image it views.
#[pyclass(frozen, module = "texelflow._texelflow")]
struct Owned {
    image: Image,
}

/// A numpy array over `bytes` (the GPU storage layout of `desc`, rows `row_bytes` apart),
/// kept alive by `base`: (h, w) for one channel, (h, w, 4) otherwise; uint8, uint16 or float32
/// by format.
fn view_array<'py>(
    base: Bound<'py, PyAny>,
    bytes: &[u8],
    desc: ImageDesc,
    row_bytes: usize,
) -> PyResult<Bound<'py, PyAny>> {
    fn typed<'py, T: Element>(
        base: Bound<'py, PyAny>,
        bytes: &[u8],
        desc: ImageDesc,
        row_bytes: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let size = std::mem::size_of::<T>();
        let channels = desc.format.channels();
        let (h, w) = (desc.height as usize, desc.width as usize);
        let need = row_bytes * h.saturating_sub(1) + w * channels * size;
        if bytes.len() < need
            || bytes.as_ptr().align_offset(std::mem::align_of::<T>()) != 0
            || !row_bytes.is_multiple_of(size)
        {
            return Err(PyRuntimeError::new_err(format!(
                "read-back memory of {} bytes cannot hold {desc}",
                bytes.len()
            )));
        }
        let ptr = bytes.as_ptr().cast::<T>();
        let row = row_bytes / size;
        let (shape, strides): (Vec<usize>, Vec<usize>) = if channels == 1 {
            (vec![h, w], vec![row, 1])
        } else {
            (vec![h, w, channels], vec![row, channels, 1])
        };
        // SAFETY: `ptr` is aligned for T and the checks above keep every element of this
        // shape and these strides inside `bytes`, which `base` keeps alive and never moves.
        let view: ArrayView<'_, T, IxDyn> =
            unsafe { ArrayView::from_shape_ptr(IxDyn(&shape).strides(IxDyn(&strides)), ptr) };
        // SAFETY: `base` owns the memory (module docs of `Mapped`, `Owned`) and becomes the
        // array's base object, so the memory lives as long as the array.
        Ok(unsafe { PyArrayDyn::<T>::borrow_from_array(&view, base) }.into_any())
    }
    match desc.format {
        PixelFormat::Rgba8 | PixelFormat::Gray8 => typed::<u8>(base, bytes, desc, row_bytes),
        PixelFormat::Rgba16 => typed::<u16>(base, bytes, desc, row_bytes),
        PixelFormat::Rgba32F | PixelFormat::R32F => typed::<f32>(base, bytes, desc, row_bytes),
    }
}

/// A data result as the dict the CLI writes as JSON (`--data`).
fn data_to_py<'py>(py: Python<'py>, d: &Data) -> PyResult<Bound<'py, PyAny>> {
    json_to_py(py, &texelflow::json::data_json(d))
}

fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// A run's value as a Python object: an image as an array (zero-copy), data as a dict.
fn host_value_to_py<'py>(py: Python<'py>, v: HostValue) -> PyResult<Bound<'py, PyAny>> {
    match v {
        HostValue::Mapped(image) => {
            let desc = image.desc();
            let row_bytes = image.row_bytes();
            let base = Bound::new(py, Mapped { image })?;
            let bytes: &[u8] = base.get().image.bytes();
            // SAFETY of the lifetime: `bytes` lives in `base`, which the array keeps
            let bytes: &[u8] = unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) };
            view_array(base.into_any(), bytes, desc, row_bytes)
        }
        HostValue::Value(Value::Image(image)) => {
            let desc = image.desc();
            // the CPU layout: rows of width x channels samples, no padding
            let row_bytes =
                desc.width as usize * desc.format.channels() * sample_bytes(desc.format);
            let base = Bound::new(py, Owned { image })?;
            let bytes: &[u8] = match base.get().image.data() {
                texelflow::image::ImageData::U8(v) => v,
                texelflow::image::ImageData::U16(v) => bytemuck::cast_slice(v),
                texelflow::image::ImageData::F32(v) => bytemuck::cast_slice(v),
            };
            // SAFETY of the lifetime: `bytes` lives in `base`, which the array keeps
            let bytes: &[u8] = unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) };
            view_array(base.into_any(), bytes, desc, row_bytes)
        }
        HostValue::Value(Value::Data(d)) => data_to_py(py, &d),
    }
}

fn sample_bytes(f: PixelFormat) -> usize {
    match f {
        PixelFormat::Rgba8 | PixelFormat::Gray8 => 1,
        PixelFormat::Rgba16 => 2,
        PixelFormat::Rgba32F | PixelFormat::R32F => 4,
    }
}

/// (output, notes) of a pipeline run.
fn run_result_to_py<'py>(py: Python<'py>, mut r: HostRunResult) -> PyResult<Bound<'py, PyTuple>> {
    let out = r
        .take("output")
        .ok_or_else(|| PyRuntimeError::new_err("the pipeline produced no output"))?;
    let value = host_value_to_py(py, out)?;
    PyTuple::new(py, [value, PyList::new(py, &r.notes)?.into_any()])
}

/// An environment variable, where set and not empty.
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The GPU options of a call and the environment (the one place the module reads them, as the
/// CLI does): `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` where the call names none (`adapter` is a
/// device selector: an index, a PCI bus id, a UUID or part of a name), `CUDA_VISIBLE_DEVICES`
/// (where no adapter is named: its first GPU, as CUDA and Ray mean it; set but empty or `-1`:
/// no NVIDIA GPU), `TEXELFLOW_NO_SUBGROUPS`, `TEXELFLOW_SHADER_CHECKS=all`.
fn gpu_options(backend: Option<String>, adapter: Option<String>) -> GpuOptions {
    GpuOptions {
        backend: backend.or_else(|| env_var("WGPU_BACKEND")),
        adapter: adapter.or_else(|| env_var("WGPU_ADAPTER_NAME")),
        device: None,
        // set but empty means something (no GPU), so not `env_var`
        cuda_visible_devices: std::env::var("CUDA_VISIBLE_DEVICES").ok(),
        allow_software: false,
        no_subgroups: env_var("TEXELFLOW_NO_SUBGROUPS").is_some(),
        full_shader_checks: env_var("TEXELFLOW_SHADER_CHECKS").as_deref() == Some("all"),
        // the CUDA route orders its runs by a semaphore shared with CUDA
        semaphore_export: true,
    }
}

/// The run options (the one place the module reads them from the environment, as the CLI
/// does): `TEXELFLOW_TILE`, `TEXELFLOW_STREAM_ROWS`, `TEXELFLOW_SCHEDULE`, `TEXELFLOW_MAX_FUSED`,
/// `TEXELFLOW_UPLOAD_STRIPS`, `TEXELFLOW_INJECT_GPU_FAULT`. Per-node timings are not exposed
/// (the host times are, by `Pipeline.last_host_times`).
fn run_options() -> RunOptions {
    let number = |name: &str| env_var(name).and_then(|v| v.trim().parse::<u64>().ok());
    RunOptions {
        tiling: texelflow::TilePolicy {
            tile: number("TEXELFLOW_TILE")
                .map(|v| v as u32)
                .filter(|&t| t > 0),
            band_rows: number("TEXELFLOW_STREAM_ROWS")
                .map(|v| v as u32)
                .filter(|&r| r > 0),
            ..Default::default()
        },
        schedules: env_var("TEXELFLOW_SCHEDULE")
            .map(|s| texelflow::extend::parse_schedules(&s))
            .unwrap_or_default(),
        max_fused: number("TEXELFLOW_MAX_FUSED")
            .map(|v| v as usize)
            .filter(|&n| n > 0),
        upload_strips: number("TEXELFLOW_UPLOAD_STRIPS").map(|v| v as u32),
        inject_gpu_fault: env_var("TEXELFLOW_INJECT_GPU_FAULT"),
        ..RunOptions::default()
    }
}

/// A parsed pipeline bound to a device: filters built once, kernels compiled on the first
/// run and cached on the device, staging and GPU buffers reused from run to run.
#[pyclass(frozen, module = "texelflow._texelflow", name = "Pipeline")]
struct PyPipeline {
    pipe: texelflow::Pipeline,
    backend: Backend,
    spec: String,
    /// The fallback note when "auto" found no GPU.
    note: Option<String>,
    last_host: Mutex<texelflow::HostTimes>,
    /// The CUDA side of runs on CUDA tensors (`cuda.rs`), made on the first.
    #[cfg(target_os = "linux")]
    cuda: Mutex<Option<cuda::Share>>,
    /// The CUDA device sharing was refused for, and why (not tried again).
    cuda_refused: Mutex<Option<(i32, String)>>,
}

/// Opens the images a spec names: a key of `images` (an array), else a file.
fn loader<'a, 'py>(
    images: Option<&'a Bound<'py, PyDict>>,
) -> impl FnMut(&str) -> texelflow::Result<Image> + 'a {
    move |name: &str| {
        if let Some(images) = images {
            if let Ok(Some(arr)) = images.get_item(name) {
                let arr = arr.cast_into::<PyUntypedArray>().map_err(|_| {
                    texelflow::Error::Image(format!("images[{name:?}] is not a numpy array"))
                })?;
                return NumpyImage::new(&arr, false)
                    .map_err(|e| texelflow::Error::Image(e.to_string()))?
                    .to_image_owned();
            }
        }
        Image::open(name)
    }
}

#[pymethods]
impl PyPipeline {
    #[new]
    #[pyo3(signature = (spec, device="auto", backend=None, adapter=None, images=None))]
    fn new(
        spec: &str,
        device: &str,
        backend: Option<String>,
        adapter: Option<String>,
        images: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let pipe = texelflow::Pipeline::parse(spec, &mut loader(images)).map_err(py_err)?;
        let (backend, note) = backend_for(device, backend, adapter)?;
        Ok(Self {
            pipe,
            backend,
            spec: spec.to_string(),
            note,
            last_host: Mutex::new(Default::default()),
            #[cfg(target_os = "linux")]
            cuda: Mutex::new(None),
            cuda_refused: Mutex::new(None),
        })
    }

    /// The spec this pipeline was parsed from.
    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    /// Where it runs, e.g. "NVIDIA H100 (vulkan)" or "CPU reference".
    #[getter]
    fn device(&self) -> String {
        self.backend.describe()
    }

    /// Why it runs on the CPU although "auto" asked for a GPU (None otherwise).
    #[getter]
    fn fallback_note(&self) -> Option<String> {
        self.note.clone()
    }

    /// Host-side times of the last run, ms: upload (into staging), record, wait, readback.
    #[getter]
    fn last_host_times<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = *self
            .last_host
            .lock()
            .map_err(|_| PyRuntimeError::new_err("timing state poisoned"))?;
        let d = PyDict::new(py);
        d.set_item("upload_ms", t.upload_ms)?;
        d.set_item("record_ms", t.record_ms)?;
        d.set_item("wait_ms", t.wait_ms)?;
        d.set_item("readback_ms", t.readback_ms)?;
        Ok(d)
    }

    /// Runs on one array; returns (output, notes). (A grey array enters as Gray8; the pipeline
    /// widens it before a filter that takes RGBA only.)
    fn run<'py>(
        &self,
        py: Python<'py>,
        array: &Bound<'py, PyUntypedArray>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let input = NumpyImage::new(array, false)?;
        let (pipe, backend) = (&self.pipe, &self.backend);
        let r = py
            .detach(|| pipe.run_host(backend, &input, &run_options()))
            .map_err(py_err)?;
        if let Ok(mut t) = self.last_host.lock() {
            *t = r.host;
        }
        run_result_to_py(py, r)
    }

    /// Runs on every array of `arrays`, `in_flight` of them at once (each on a thread of its
    /// own: one uploads while another computes and a third is read back); returns a list of
    /// (output, notes), in input order.
    #[pyo3(signature = (arrays, in_flight=4))]
    fn run_batch<'py>(
        &self,
        py: Python<'py>,
        arrays: Vec<Bound<'py, PyUntypedArray>>,
        in_flight: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        if in_flight == 0 {
            return Err(PyValueError::new_err("in_flight must be at least 1"));
        }
        let inputs: Vec<NumpyImage> = arrays
            .iter()
            .map(|a| NumpyImage::new(a, false))
            .collect::<PyResult<_>>()?;
        let (pipe, backend) = (&self.pipe, &self.backend);
        let results: Vec<texelflow::Result<HostRunResult>> = py.detach(|| {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let slots: Vec<Mutex<Option<texelflow::Result<HostRunResult>>>> =
                inputs.iter().map(|_| Mutex::new(None)).collect();
            std::thread::scope(|s| {
                for _ in 0..in_flight.min(inputs.len()) {
                    s.spawn(|| loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(input) = inputs.get(i) else { break };
                        let r = pipe.run_host(backend, input, &run_options());
                        if let Ok(mut slot) = slots[i].lock() {
                            *slot = Some(r);
                        }
                    });
                }
            });
            slots
                .into_iter()
                .map(|m| {
                    m.into_inner().ok().flatten().unwrap_or_else(|| {
                        Err(texelflow::Error::Gpu(
                            "a batch worker stopped without a result".into(),
                        ))
                    })
                })
                .collect()
        });
        let out = PyList::empty(py);
        for r in results {
            out.append(run_result_to_py(py, r.map_err(py_err)?)?)?;
        }
        Ok(out)
    }

    /// The image files of `inputs` (files, folders, `*`/`?` names) through this pipeline into
    /// `out_dir` (`texelflow::batch`, as `texelflow apply IN... --out-dir DIR`): `jobs` workers
    /// decode and encode, `gpu_jobs` images run on the device at once, on this pipeline's
    /// device (kept open: a second call is warm). The GIL is released throughout. Returns a
    /// dict: `done`, `skipped`, `failed` (`[path, reason]` pairs), `wall` (seconds), `notes`,
    /// `warnings`, and with `timings` `times` (per file, ms).
    #[pyo3(signature = (inputs, out_dir, name=None, recursive=false, jobs=None, gpu_jobs=None, overwrite=false, skip_existing=false, jpeg_quality=90, allow_truncated=false, host_decode=false, host_encode=false, stream=None, shrink_on_load=true, timings=false))]
    #[allow(clippy::too_many_arguments)]
    fn apply_batch<'py>(
        &self,
        py: Python<'py>,
        inputs: Vec<std::path::PathBuf>,
        out_dir: std::path::PathBuf,
        name: Option<String>,
        recursive: bool,
        jobs: Option<usize>,
        gpu_jobs: Option<usize>,
        overwrite: bool,
        skip_existing: bool,
        jpeg_quality: u8,
        allow_truncated: bool,
        host_decode: bool,
        host_encode: bool,
        stream: Option<bool>,
        shrink_on_load: bool,
        timings: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        use texelflow::batch::{BatchEvent, BatchOptions, BatchProgress, Existing, StreamPolicy};
        if overwrite && skip_existing {
            return Err(PyValueError::new_err(
                "overwrite and skip_existing exclude each other",
            ));
        }
        if jobs == Some(0) || gpu_jobs == Some(0) {
            return Err(PyValueError::new_err(
                "jobs and gpu_jobs must be at least 1",
            ));
        }
        let on_cpu = matches!(self.backend, Backend::Cpu);
        let defaults = BatchOptions::default();
        let jobs = jobs.unwrap_or(defaults.jobs);
        let options = BatchOptions {
            name: name.unwrap_or(defaults.name),
            recursive,
            jobs,
            // the CPU reference is not limited
            gpu_jobs: gpu_jobs.unwrap_or(if on_cpu { jobs } else { defaults.gpu_jobs }),
            existing: if overwrite {
                Existing::Overwrite
            } else if skip_existing {
                Existing::Skip
            } else {
                Existing::Refuse
            },
            save: texelflow::SaveOptions {
                jpeg_quality,
                ..Default::default()
            },
            fallback: false,
            allow_truncated,
            device_decode: !on_cpu && !host_decode && !allow_truncated,
            gpu_entropy: true,
            device_encode: !on_cpu && !host_encode,
            stream: match stream {
                None => StreamPolicy::Auto,
                Some(true) => StreamPolicy::Always,
                Some(false) => StreamPolicy::Never,
            },
            timings,
            run: RunOptions {
                shrink_on_load,
                ..run_options()
            },
        };
        /// What the batch says while it runs, kept for the summary.
        #[derive(Default)]
        struct Heard(Mutex<Vec<String>>, Mutex<Vec<String>>);
        impl BatchProgress for Heard {
            fn event(&self, event: BatchEvent<'_>) {
                let (list, line) = match event {
                    BatchEvent::Warning { input, message } => {
                        (&self.0, format!("`{}`: {message}", input.display()))
                    }
                    BatchEvent::Fallback { input, error } => (
                        &self.1,
                        format!(
                            "`{}`: {error}; run again on the CPU reference",
                            input.display()
                        ),
                    ),
                    BatchEvent::Note { message, .. } => (&self.1, message.to_string()),
                    _ => return,
                };
                if let Ok(mut l) = list.lock() {
                    l.push(line);
                }
            }
        }
        let heard = Heard::default();
        let (pipe, backend) = (&self.pipe, &self.backend);
        let s = py
            .detach(|| {
                texelflow::batch::run_batch_on(
                    pipe,
                    std::slice::from_ref(backend),
                    &inputs,
                    &out_dir,
                    &options,
                    &heard,
                )
            })
            .map_err(py_err)?;
        let text = |p: &std::path::Path| p.display().to_string();
        let failed: Vec<serde_json::Value> = s
            .failed
            .iter()
            .map(|f| {
                let why = match &f.error {
                    texelflow::Error::OutputExists { .. } => format!(
                        "`{}` exists; pass overwrite=True or skip_existing=True",
                        f.output.display()
                    ),
                    _ => f.reason(),
                };
                serde_json::json!([text(&f.input), why])
            })
            .collect();
        let mut notes = heard.1.into_inner().unwrap_or_default();
        notes.extend(s.notes);
        let mut v = serde_json::json!({
            "done": s.done,
            "skipped": s.skipped,
            "failed": failed,
            "wall": s.wall.as_secs_f64(),
            "notes": notes,
            "warnings": heard.0.into_inner().unwrap_or_default(),
        });
        if timings {
            let times: Vec<serde_json::Value> = s
                .times
                .iter()
                .map(|(p, t)| {
                    serde_json::json!({
                        "file": text(p),
                        "decode_ms": t.decode,
                        "run_ms": t.run,
                        "gpu_ms": t.gpu,
                        "encode_ms": t.encode,
                        "decoded_on_device": t.on_device,
                        "encoded_on_device": t.encoded_on_device,
                    })
                })
                .collect();
            v["times"] = serde_json::Value::Array(times);
        }
        json_to_py(py, &v)
    }

    /// A zeroed array of `height` x `width` (`channels` 1 or 4; `dtype` "uint8", or "uint16"
    /// with 4 channels) whose memory is a pinned upload buffer of this pipeline's device
    /// (`texelflow::PinnedUpload`): (h, w) for one channel, (h, w, 4) otherwise, rows in the
    /// GPU layout (one-channel rows padded to 4 bytes). A run on it records the GPU copy alone.
    /// None on the CPU and on backends whose mappings may move (DX12, GL): use ordinary memory.
    fn input_array<'py>(
        &self,
        py: Python<'py>,
        height: u32,
        width: u32,
        channels: u32,
        dtype: &str,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let format = match (dtype, channels) {
            ("uint8", 4) => PixelFormat::Rgba8,
            ("uint8", 1) => PixelFormat::Gray8,
            ("uint16", 4) => PixelFormat::Rgba16,
            _ => return Err(PyValueError::new_err(format!("input_array: the GPU layout holds uint8 with 1 or 4 channels or uint16 with 4, not {dtype} with {channels}; fill an ordinary array instead (it is converted on upload)"))),
        };
        let side = |v: u32| (1..=texelflow::image::MAX_SIDE).contains(&v);
        if !side(width) || !side(height) {
            return Err(PyValueError::new_err(format!(
                "input_array: {width}x{height}: sides must be 1 to {} pixels",
                texelflow::image::MAX_SIDE
            )));
        }
        let Backend::Gpu(gpu) = &self.backend else {
            return Ok(None);
        };
        let desc = ImageDesc::new(width, height, format);
        let Some(upload) = py
            .detach(|| texelflow::PinnedUpload::new(gpu, desc))
            .map_err(py_err)?
        else {
            return Ok(None);
        };
        let row_bytes = upload.row_bytes();
        let base = Bound::new(py, Pinned { upload })?;
        let up = &base.get().upload;
        // SAFETY: the persistent mapping of the buffer that `base` owns (`PinnedUpload`), valid
        // for `len()` bytes as long as `base` lives; the array keeps `base` alive
        let bytes: &[u8] = unsafe { std::slice::from_raw_parts(up.as_ptr(), up.len()) };
        view_array(base.into_any(), bytes, desc, row_bytes).map(Some)
    }

    /// The result's (width, height, format name) for an input of `width` x `height` in
    /// `format` ("rgba8", "gray8", "rgba16"), or None where it is not an image (data).
    fn output_format(
        &self,
        width: u32,
        height: u32,
        format: &str,
    ) -> PyResult<Option<(u32, u32, &'static str)>> {
        let desc = ImageDesc::new(width, height, format_by_name(format)?);
        Ok(self
            .pipe
            .output_desc(desc)
            .ok()
            .map(|d| (d.width, d.height, d.format.name())))
    }

    /// Why CUDA tensors on device `ordinal` cannot share memory with this pipeline's device
    /// (then they go through host memory), or None where they can. Sets the sharing up.
    fn cuda_share(&self, py: Python<'_>, ordinal: i32) -> PyResult<Option<String>> {
        #[cfg(target_os = "linux")]
        {
            let Backend::Gpu(gpu) = &self.backend else {
                return Ok(Some("the pipeline runs on the CPU reference".into()));
            };
            let mut slot = self
                .cuda
                .lock()
                .map_err(|_| PyRuntimeError::new_err("CUDA state poisoned"))?;
            if slot.as_ref().is_some_and(|s| s.ordinal() == ordinal) {
                return Ok(None);
            }
            let mut refused = self
                .cuda_refused
                .lock()
                .map_err(|_| PyRuntimeError::new_err("CUDA state poisoned"))?;
            if let Some((_, why)) = refused.as_ref().filter(|(o, _)| *o == ordinal) {
                return Ok(Some(why.clone()));
            }
            *slot = None;
            let gpu = gpu.clone();
            match py.detach(|| cuda::Share::new(gpu, ordinal)) {
                Ok(share) => {
                    *slot = Some(share);
                    Ok(None)
                }
                Err(why) => {
                    *refused = Some((ordinal, why.clone()));
                    Ok(Some(why))
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (py, ordinal);
            Ok(Some(
                "memory sharing with CUDA is implemented on Linux only".into(),
            ))
        }
    }

    /// Host times of the last CUDA call, ms: `cuda_wait_ms` (for the caller's stream and the
    /// last copy out, where the host waits), `run_ms` (texelflow's runs: prepared or replayed,
    /// submitted, and waited for where the host waits), `other_ms` (copies queued, buffers
    /// grown); `semaphore_note`: None where runs are ordered on the GPU by a shared semaphore,
    /// else why not. None before the first.
    #[getter]
    fn last_cuda_times<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        #[cfg(target_os = "linux")]
        {
            let slot = self
                .cuda
                .lock()
                .map_err(|_| PyRuntimeError::new_err("CUDA state poisoned"))?;
            let Some(share) = slot.as_ref() else {
                return Ok(None);
            };
            let d = PyDict::new(py);
            for (k, v) in ["cuda_wait_ms", "run_ms", "other_ms"]
                .iter()
                .zip(share.last_ms)
            {
                d.set_item(k, v)?;
            }
            d.set_item("import_tries", share.import_tries)?;
            // ordered on the GPU by a shared semaphore, or the host waits, and why
            d.set_item("semaphore_note", share.semaphore_note())?;
            Ok(Some(d))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = py;
            Ok(None)
        }
    }

    /// Runs on the image at device address `src` (rows `src_pitch` bytes apart, `width` x
    /// `height` in `format`'s layout) into the device address `dst` (rows `dst_pitch` apart,
    /// the result of `output_format`), through memory shared with CUDA (`cuda_share` first),
    /// the copies on CUDA stream `stream`; `count` images, `src_step` and `dst_step` bytes
    /// apart (a batch).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (stream, src, src_pitch, width, height, format, dst, dst_pitch, count=1, src_step=0, dst_step=0))]
    fn run_cuda(
        &self,
        py: Python<'_>,
        stream: usize,
        src: u64,
        src_pitch: usize,
        width: u32,
        height: u32,
        format: &str,
        dst: u64,
        dst_pitch: usize,
        count: u64,
        src_step: u64,
        dst_step: u64,
    ) -> PyResult<()> {
        #[cfg(target_os = "linux")]
        {
            let Backend::Gpu(gpu) = &self.backend else {
                return Err(PyRuntimeError::new_err(
                    "the pipeline runs on the CPU reference",
                ));
            };
            let desc = ImageDesc::new(width, height, format_by_name(format)?);
            let out = self.pipe.output_desc(desc).map_err(py_err)?;
            let plane = |d: ImageDesc| cuda::Plane {
                row_bytes: d.width as usize * d.format.channels() * sample_bytes(d.format),
                rows: d.height as usize,
                pitch: d.format.gpu_row_bytes(d.width) as usize,
            };
            let (input, output) = (plane(desc), plane(out));
            for (rows, plane, what) in [(src_pitch, input, "input"), (dst_pitch, output, "output")]
            {
                if rows < plane.row_bytes {
                    return Err(PyValueError::new_err(format!(
                        "the {what} tensor's rows are {rows} bytes apart, less than a row's {} bytes",
                        plane.row_bytes
                    )));
                }
            }
            let mut slot = self
                .cuda
                .lock()
                .map_err(|_| PyRuntimeError::new_err("CUDA state poisoned"))?;
            let share = slot
                .as_mut()
                .ok_or_else(|| PyRuntimeError::new_err("run_cuda before cuda_share"))?;
            let pipe = &self.pipe;
            let opts = run_options();
            let r = py.detach(|| {
                share.run(
                    stream,
                    desc,
                    (
                        cuda::Rows {
                            ptr: src,
                            pitch: src_pitch,
                            step: src_step,
                        },
                        input,
                    ),
                    (
                        cuda::Rows {
                            ptr: dst,
                            pitch: dst_pitch,
                            step: dst_step,
                        },
                        output,
                    ),
                    count,
                    // recorded once per shape, replayed after
                    |slots| {
                        match texelflow::io::texture::prepare_buffer_batch(
                            pipe,
                            gpu,
                            slots.input,
                            desc,
                            slots.output,
                            slots.count,
                            &opts,
                        ) {
                            Ok((run, _)) => Ok(Some(run)),
                            // temporal filters, uploads of their own: recorded every run
                            Err(texelflow::Error::Graph(texelflow::GraphError::Unsupported(_))) => {
                                Ok(None)
                            }
                            Err(e) => Err(e),
                        }
                    },
                    |slots| {
                        texelflow::io::texture::run_buffer_batch(
                            pipe,
                            gpu,
                            slots.input,
                            desc,
                            slots.output,
                            slots.count,
                            &opts,
                        )
                        .map(|_| ())
                    },
                )
            });
            match r {
                Ok(()) => Ok(()),
                Err(cuda::RunError::Cuda(e)) => Err(PyRuntimeError::new_err(e)),
                Err(cuda::RunError::Texelflow(e)) => Err(py_err(e)),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (
                py, stream, src, src_pitch, width, height, format, dst, dst_pitch,
            );
            let _ = (count, src_step, dst_step);
            Err(PyRuntimeError::new_err(
                "memory sharing with CUDA is implemented on Linux only",
            ))
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Pipeline({:?}, device={:?})",
            self.spec,
            self.backend.describe()
        )
    }
}

/// An output of a graph node.
#[pyclass(frozen, module = "texelflow._texelflow", name = "Port")]
#[derive(Clone)]
struct PyPort {
    port: texelflow::Port,
    desc: String,
}

#[pymethods]
impl PyPort {
    /// What the port carries, e.g. "image 640x480 rgba8" or "histogram data".
    #[getter]
    fn desc(&self) -> &str {
        &self.desc
    }
    fn __repr__(&self) -> String {
        format!("Port({})", self.desc)
    }
}

/// A filter graph: sources of fixed size and format, nodes from spec calls, named outputs.
#[pyclass(module = "texelflow._texelflow", name = "Graph")]
struct PyGraph {
    graph: texelflow::Graph,
}

fn format_by_name(name: &str) -> PyResult<PixelFormat> {
    [
        PixelFormat::Rgba8,
        PixelFormat::Gray8,
        PixelFormat::Rgba16,
        PixelFormat::Rgba32F,
        PixelFormat::R32F,
    ]
    .into_iter()
    .find(|f| f.name() == name)
    .ok_or_else(|| {
        PyValueError::new_err(format!(
            "format `{name}`: use rgba8, gray8, rgba16, rgba32f or r32f"
        ))
    })
}

#[pymethods]
impl PyGraph {
    #[new]
    fn new() -> Self {
        Self {
            graph: texelflow::Graph::new(),
        }
    }

    /// An image input of `width` x `height` in `format` (rgba8, gray8, rgba16, rgba32f, r32f).
    fn source(&mut self, name: &str, width: u32, height: u32, format: &str) -> PyResult<PyPort> {
        let desc = ImageDesc::new(width, height, format_by_name(format)?);
        let port = self.graph.source(name, desc).map_err(py_err)?;
        Ok(PyPort {
            port,
            desc: self.graph.desc(port).to_string(),
        })
    }

    /// Adds one filter from a spec call (`"gaussian_blur(sigma=3)"`) reading `inputs`; returns its outputs.
    fn add(&mut self, call: &str, inputs: Vec<PyRef<'_, PyPort>>) -> PyResult<Vec<PyPort>> {
        let filter = texelflow::registry::create(call).map_err(py_err)?;
        let ins: Vec<texelflow::Port> = inputs.iter().map(|p| p.port).collect();
        let outs = self.graph.add_boxed(filter, &ins).map_err(py_err)?;
        Ok(outs
            .into_iter()
            .map(|port| PyPort {
                port,
                desc: self.graph.desc(port).to_string(),
            })
            .collect())
    }

    /// Marks `port` as a result named `name`.
    fn output(&mut self, name: &str, port: PyRef<'_, PyPort>) -> PyResult<()> {
        self.graph.output(name, port.port).map_err(py_err)
    }

    /// Notes of the builder (e.g. an image narrowed to 8 bits).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.graph.notes().to_vec()
    }

    /// Runs with `sources` (name -> array) on `device`; returns {output name: array or dict}.
    /// (A grey uint8 source declared rgba8 arrives widened to RGB by the Python side.)
    #[pyo3(signature = (sources, device="auto", backend=None, adapter=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        sources: &Bound<'py, PyDict>,
        device: &str,
        backend: Option<String>,
        adapter: Option<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (be, _) = backend_for(device, backend, adapter)?;
        let mut named: Vec<(String, NumpyImage)> = Vec::new();
        for (k, v) in sources.iter() {
            let name: String = k.extract()?;
            let arr = v.cast_into::<PyUntypedArray>().map_err(|_| {
                PyValueError::new_err(format!("source `{name}` is not a numpy array"))
            })?;
            named.push((name, NumpyImage::new(&arr, false)?));
        }
        let graph = &self.graph;
        let r = py
            .detach(|| {
                let refs: Vec<(&str, &dyn texelflow::HostImage)> = named
                    .iter()
                    .map(|(n, i)| (n.as_str(), i as &dyn texelflow::HostImage))
                    .collect();
                be.run_host(graph, &refs, &run_options())
            })
            .map_err(py_err)?;
        let out = PyDict::new(py);
        for (name, v) in r.outputs {
            out.set_item(name, host_value_to_py(py, v)?)?;
        }
        Ok(out)
    }
}

/// The analysis `texelflow analyze --json` prints (without `file`), of an array.
#[pyfunction]
#[pyo3(signature = (array, device="auto", backend=None, adapter=None))]
fn analyze<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyUntypedArray>,
    device: &str,
    backend: Option<String>,
    adapter: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let (be, _) = backend_for(device, backend, adapter)?;
    // the analysis reads RGBA8: grey widened on the way in; 16-bit and float narrowed as the CLI does
    let input = NumpyImage::new(array, true)?;
    let narrowed = if texelflow::HostImage::desc(&input).format == PixelFormat::Rgba8 {
        None
    } else {
        Some(
            input
                .to_image_owned()
                .map_err(py_err)?
                .convert(PixelFormat::Rgba8),
        )
    };
    let source: &dyn texelflow::HostImage = match &narrowed {
        Some(img) => img,
        None => &input,
    };
    let desc = source.desc();
    let analysis = py
        .detach(|| -> texelflow::Result<texelflow::json::Analysis> {
            let g = texelflow::json::analysis_graph(desc)?;
            let mut r = be.run_host(&g, &[("image", source)], &run_options())?;
            texelflow::json::Analysis::from_outputs(desc.width, desc.height, |name| {
                match r.take(name) {
                    Some(HostValue::Value(Value::Data(d))) => Some(d),
                    _ => None,
                }
            })
        })
        .map_err(py_err)?;
    json_to_py(py, &analysis.to_json(&be.describe()))
}

/// Every filter of the registry with its parameters, ports and image formats
/// (`texelflow::registry::catalogue_json`, the web playground's list too).
#[pyfunction]
fn list_filters(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let mut cat = texelflow::registry::catalogue_json();
    json_to_py(py, &cat["filters"].take())
}

/// The GPU adapters the system offers, in texelflow's order (the index `adapter=` takes:
/// hardware GPUs by PCI bus id, then the rest), each with its ids; `default` marks the one
/// `device="auto"` opens with these options and the environment (none: the CPU reference).
#[pyfunction]
#[pyo3(signature = (backend=None, adapter=None))]
fn devices(
    py: Python<'_>,
    backend: Option<String>,
    adapter: Option<String>,
) -> PyResult<Bound<'_, PyAny>> {
    let opts = gpu_options(backend, adapter);
    let list = py
        .detach(|| texelflow::Gpu::adapters(&opts))
        .map_err(py_err)?;
    let chosen = texelflow::device::choose_adapter(&list, &opts, true)
        .ok()
        .and_then(|c| c.index);
    let v: Vec<serde_json::Value> = list
        .iter()
        .map(|a| {
            serde_json::json!({
                "index": a.index,
                "name": a.name,
                "backend": a.backend,
                "type": a.device_type,
                "driver": a.driver,
                "vendor": a.vendor,
                "pci_bus_id": a.pci_bus_id,
                "uuid": a.uuid_string(),
                "default": Some(a.index) == chosen,
            })
        })
        .collect();
    json_to_py(py, &serde_json::Value::Array(v))
}

/// Whether `array` is a whole pinned input (`Pipeline.input_array`), uploaded by a GPU copy
/// alone on its device.
#[pyfunction]
fn is_pinned(array: &Bound<'_, PyUntypedArray>) -> bool {
    NumpyImage::new(array, false)
        .map(|i| i.is_pinned())
        .unwrap_or(false)
}

/// `input` through `spec` into `output` (files; atomic write): streamed in bands where the
/// pipeline allows it and the image is large (`stream=None`: from 64 MP) or `stream=True`,
/// else decoded whole. With `shrink_on_load` (the default), a JPEG before a leading shrink by
/// 2 or more is decoded at a DCT scale (`texelflow::io::shrink_on_load`). A JPEG output of a
/// whole run on a GPU is encoded there too unless `host_encode` (the same file). Returns
/// `{"streamed": bool, "notes": [...], "warnings": [...]}`.
#[pyfunction]
#[pyo3(signature = (input, output, spec, device="auto", backend=None, adapter=None, allow_truncated=false, jpeg_quality=90, stream=None, shrink_on_load=true, host_encode=false))]
#[allow(clippy::too_many_arguments)]
fn apply_file<'py>(
    py: Python<'py>,
    input: std::path::PathBuf,
    output: std::path::PathBuf,
    spec: &str,
    device: &str,
    backend: Option<String>,
    adapter: Option<String>,
    allow_truncated: bool,
    jpeg_quality: u8,
    stream: Option<bool>,
    shrink_on_load: bool,
    host_encode: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let pipe = texelflow::Pipeline::parse(spec, &mut |p: &str| Image::open(p)).map_err(py_err)?;
    let (be, note) = backend_for(device, backend, adapter)?;
    let result = py.detach(|| -> texelflow::Result<serde_json::Value> {
        let opts = texelflow::io::ApplyOptions {
            load: texelflow::LoadOptions { limits: None, allow_truncated, ..Default::default() },
            save: texelflow::SaveOptions { jpeg_quality, ..Default::default() },
            run: RunOptions { shrink_on_load, ..run_options() },
            stream,
            host_encode,
        };
        let r = texelflow::io::apply_file(&pipe, &be, &input, &output, &opts)?;
        Ok(match &r.file {
            Some(f) => serde_json::json!({ "streamed": true, "notes": r.notes, "warnings": r.warnings, "bands": f.stream.bands, "host_bytes": f.host_bytes }),
            None => serde_json::json!({ "streamed": false, "notes": r.notes, "warnings": r.warnings }),
        })
    });
    let mut v = result.map_err(py_err)?;
    if let (Some(n), Some(notes)) = (note, v.get_mut("notes").and_then(|n| n.as_array_mut())) {
        notes.insert(0, serde_json::Value::String(n));
    }
    json_to_py(py, &v)
}

/// The video `input` through `spec` into `output` (`texelflow::video::process_video`: ffmpeg
/// decodes and encodes; temporal filters keep their state; atomic write). With `data`, a
/// pipeline ending in data writes one JSON line (or CSV row) per frame to `output`. Returns the
/// report as a dict; notes are in its `notes`.
#[pyfunction]
#[pyo3(signature = (input, output, spec, device="auto", backend=None, adapter=None, codec=None, crf=None, pix_fmt=None, fps=None, no_clobber=false, jobs=3, transfer="auto", data=false))]
#[allow(clippy::too_many_arguments)]
fn process_video<'py>(
    py: Python<'py>,
    input: std::path::PathBuf,
    output: std::path::PathBuf,
    spec: &str,
    device: &str,
    backend: Option<String>,
    adapter: Option<String>,
    codec: Option<String>,
    crf: Option<u8>,
    pix_fmt: Option<String>,
    fps: Option<String>,
    no_clobber: bool,
    jobs: usize,
    transfer: &str,
    data: bool,
) -> PyResult<Bound<'py, PyAny>> {
    use texelflow::video::{TransferMode, VideoOptions};
    let transfer = TransferMode::parse(transfer).ok_or_else(|| {
        PyValueError::new_err(format!(
            "transfer `{transfer}`: use \"auto\", \"rgba\" or \"yuv420p\""
        ))
    })?;
    let pipe = texelflow::Pipeline::parse(spec, &mut |p: &str| Image::open(p)).map_err(py_err)?;
    let (be, note) = backend_for(device, backend, adapter)?;
    let opts = VideoOptions {
        codec,
        crf,
        pix_fmt,
        fps,
        no_clobber,
        jobs,
        transfer,
        data,
        ..Default::default()
    };
    let r = py
        .detach(|| {
            texelflow::video::process_video(&be, &pipe, &input, &output, &opts, &run_options())
        })
        .map_err(py_err)?;
    let mut notes = r.notes;
    if let Some(n) = note {
        notes.insert(0, n);
    }
    let size = |s: Option<(u32, u32)>| s.map(|(w, h)| serde_json::json!([w, h]));
    let v = serde_json::json!({
        "frames": r.frames,
        "expected_frames": r.expected_frames,
        "input_size": [r.input_size.0, r.input_size.1],
        "output_size": size(r.output_size),
        "encoded_size": size(r.encoded_size),
        "rate": r.rate,
        "fps": r.fps,
        "transfer": r.transfer,
        "codec": r.codec,
        "pix_fmt": r.pix_fmt,
        "notes": notes,
        "seconds": r.seconds,
    });
    json_to_py(py, &v)
}

/// The description of the device `device` opens ("CPU reference" for the CPU) and the note of
/// a fallback to the CPU, without running anything.
#[pyfunction]
#[pyo3(signature = (device="auto", backend=None, adapter=None))]
fn open_device(
    py: Python<'_>,
    device: &str,
    backend: Option<String>,
    adapter: Option<String>,
) -> PyResult<(String, Option<String>)> {
    let (be, note) = py.detach(|| backend_for(device, backend, adapter))?;
    Ok((be.describe(), note))
}

/// The (input, output) pairs a batch of `inputs` into `out_dir` would make
/// (`texelflow::batch::plan`: folders listed, `name` applied, the same checks before any work).
#[pyfunction]
#[pyo3(signature = (inputs, out_dir, name=None, recursive=false))]
fn batch_plan(
    py: Python<'_>,
    inputs: Vec<std::path::PathBuf>,
    out_dir: std::path::PathBuf,
    name: Option<String>,
    recursive: bool,
) -> PyResult<Vec<(String, String)>> {
    let defaults = texelflow::batch::BatchOptions::default();
    let options = texelflow::batch::BatchOptions {
        name: name.unwrap_or(defaults.name.clone()),
        recursive,
        ..defaults
    };
    let jobs = py
        .detach(|| texelflow::batch::plan(&inputs, &out_dir, &options))
        .map_err(py_err)?;
    Ok(jobs
        .into_iter()
        .map(|j| {
            (
                j.input.display().to_string(),
                j.output.display().to_string(),
            )
        })
        .collect())
}

/// `text` quoted as one spec value (`texelflow::quote`): any file name survives unchanged.
#[pyfunction]
fn quote(text: &str) -> String {
    texelflow::quote(text)
}

#[pymodule]
fn _texelflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPipeline>()?;
    m.add_class::<PyGraph>()?;
    m.add_class::<PyPort>()?;
    m.add_class::<Mapped>()?;
    m.add_class::<Owned>()?;
    m.add_class::<Pinned>()?;
    m.add_function(wrap_pyfunction!(is_pinned, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(list_filters, m)?)?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(open_device, m)?)?;
    m.add_function(wrap_pyfunction!(apply_file, m)?)?;
    m.add_function(wrap_pyfunction!(process_video, m)?)?;
    m.add_function(wrap_pyfunction!(quote, m)?)?;
    m.add_function(wrap_pyfunction!(batch_plan, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
