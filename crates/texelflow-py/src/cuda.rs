//! CUDA tensors in and out with no host copy: texelflow's input and output buffers are Vulkan
//! memory exported to CUDA (`texelflow::Gpu::export_buffer`), imported here with the CUDA
//! driver API, loaded at run time (`libcuda.so.1`: no CUDA at build time, and none needed where
//! no CUDA tensor is ever passed).
//!
//! One run: the tensor is copied into the shared input buffer on the caller's stream (a
//! device-to-device copy, rows re-pitched to texelflow's layout), the stream is synchronised,
//! texelflow runs from the shared input into the shared output and waits for its queue, and
//! the result is copied into the caller's output tensor on the caller's stream. So the caller's
//! work before the call is done before texelflow reads, and its work after the call (on that
//! stream) sees the result: the order is kept by the host waiting on both sides (a fence, not
//! a shared semaphore: wgpu does not export Vulkan semaphores). Before texelflow overwrites
//! its output buffer in a later run, it waits for the previous copy out of it.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::os::fd::IntoRawFd;
use std::sync::{Arc, OnceLock};

use texelflow::{ExportedBuffer, Gpu};

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuStream = *mut c_void;
type CuEvent = *mut c_void;
type CuExternalMemory = *mut c_void;
type CuDevicePtr = u64;

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC` (its handle union is 16 bytes, 8-aligned).
#[repr(C)]
struct ExternalMemoryHandleDesc {
    kind: c_uint,
    fd: [c_int; 4],
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// `CUDA_EXTERNAL_MEMORY_BUFFER_DESC`.
#[repr(C)]
struct ExternalMemoryBufferDesc {
    offset: u64,
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
struct Memcpy2d {
    src_x_in_bytes: usize,
    src_y: usize,
    src_memory_type: c_uint,
    src_host: *const c_void,
    src_device: CuDevicePtr,
    src_array: *mut c_void,
    src_pitch: usize,
    dst_x_in_bytes: usize,
    dst_y: usize,
    dst_memory_type: c_uint,
    dst_host: *mut c_void,
    dst_device: CuDevicePtr,
    dst_array: *mut c_void,
    dst_pitch: usize,
    width_in_bytes: usize,
    height: usize,
}

const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: c_uint = 1;
const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 1;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;
const CU_EVENT_DISABLE_TIMING: c_uint = 2;

/// The driver API entry points used here.
struct Api {
    _lib: libloading::Library,
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    device_get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult,
    device_get_uuid: unsafe extern "C" fn(*mut [u8; 16], CuDevice) -> CuResult,
    primary_ctx_retain: unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult,
    ctx_push: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_pop: unsafe extern "C" fn(*mut CuContext) -> CuResult,
    import_external_memory:
        unsafe extern "C" fn(*mut CuExternalMemory, *const ExternalMemoryHandleDesc) -> CuResult,
    external_memory_mapped_buffer: unsafe extern "C" fn(
        *mut CuDevicePtr,
        CuExternalMemory,
        *const ExternalMemoryBufferDesc,
    ) -> CuResult,
    destroy_external_memory: unsafe extern "C" fn(CuExternalMemory) -> CuResult,
    mem_free: unsafe extern "C" fn(CuDevicePtr) -> CuResult,
    memcpy_2d_async: unsafe extern "C" fn(*const Memcpy2d, CuStream) -> CuResult,
    stream_synchronize: unsafe extern "C" fn(CuStream) -> CuResult,
    event_create: unsafe extern "C" fn(*mut CuEvent, c_uint) -> CuResult,
    event_record: unsafe extern "C" fn(CuEvent, CuStream) -> CuResult,
    event_synchronize: unsafe extern "C" fn(CuEvent) -> CuResult,
    get_error_string: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
}

impl Api {
    fn load() -> Result<Api, String> {
        // SAFETY: libcuda's initialisers have no preconditions; the symbols below are read
        // with the signatures of CUDA's driver API (cuda.h), stable since CUDA 11.4.
        unsafe {
            let lib = libloading::Library::new("libcuda.so.1")
                .map_err(|e| format!("the CUDA driver (libcuda.so.1) could not be loaded: {e}"))?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get($name).map_err(|e| {
                        format!(
                            "the CUDA driver has no {}: {e}",
                            String::from_utf8_lossy(&$name[..$name.len() - 1])
                        )
                    })?
                };
            }
            let api = Api {
                init: sym!(b"cuInit\0"),
                device_get: sym!(b"cuDeviceGet\0"),
                device_get_uuid: sym!(b"cuDeviceGetUuid_v2\0"),
                primary_ctx_retain: sym!(b"cuDevicePrimaryCtxRetain\0"),
                ctx_push: sym!(b"cuCtxPushCurrent_v2\0"),
                ctx_pop: sym!(b"cuCtxPopCurrent_v2\0"),
                import_external_memory: sym!(b"cuImportExternalMemory\0"),
                external_memory_mapped_buffer: sym!(b"cuExternalMemoryGetMappedBuffer\0"),
                destroy_external_memory: sym!(b"cuDestroyExternalMemory\0"),
                mem_free: sym!(b"cuMemFree_v2\0"),
                memcpy_2d_async: sym!(b"cuMemcpy2DAsync_v2\0"),
                stream_synchronize: sym!(b"cuStreamSynchronize\0"),
                event_create: sym!(b"cuEventCreate\0"),
                event_record: sym!(b"cuEventRecord\0"),
                event_synchronize: sym!(b"cuEventSynchronize\0"),
                get_error_string: sym!(b"cuGetErrorString\0"),
                _lib: lib,
            };
            api.check((api.init)(0), "cuInit")?;
            Ok(api)
        }
    }

    /// `Err` naming `what` and the driver's message unless `r` is CUDA_SUCCESS.
    fn check(&self, r: CuResult, what: &str) -> Result<(), String> {
        if r == 0 {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorString writes a pointer to a static string or leaves it null.
        unsafe { (self.get_error_string)(r, &mut text) };
        let text = if text.is_null() {
            String::new()
        } else {
            // SAFETY: a NUL-terminated static string of the driver's.
            format!(": {}", unsafe { CStr::from_ptr(text) }.to_string_lossy())
        };
        Err(format!("{what} failed (CUDA error {r}{text})"))
    }
}

/// The loaded driver, or why not (loaded once per process).
fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(Api::load).as_ref().map_err(Clone::clone)
}

/// A buffer of texelflow's shared with CUDA: its device pointer in the CUDA context.
struct Shared {
    buffer: ExportedBuffer,
    memory: CuExternalMemory,
    ptr: CuDevicePtr,
}

/// The CUDA side of one pipeline on one CUDA device: the primary context, the shared input and
/// output buffers (grown as needed) and the event of the last copy out.
pub(crate) struct Share {
    api: &'static Api,
    gpu: Arc<Gpu>,
    ordinal: i32,
    context: CuContext,
    input: Option<Shared>,
    output: Option<Shared>,
    copied_out: CuEvent,
    /// The last call's host times, ms: waiting for CUDA (the stream and the last copy out),
    /// texelflow's runs (record, submit, wait), the rest (copies queued, buffers grown).
    pub(crate) last_ms: [f64; 3],
    /// How many imports the first shared buffer took (`new`).
    pub(crate) import_tries: u32,
    /// Runs prepared on the shared buffers as they are, emptied before the buffers change.
    prepared: PreparedRuns,
}

/// Runs prepared on a share's buffers (`texelflow::PreparedRun`), each with what it was
/// prepared for: the image, how many, the bytes between images in and out.
pub(crate) type PreparedRuns = Vec<(
    (texelflow::ImageDesc, u32, u64, u64),
    texelflow::PreparedRun,
)>;

// SAFETY: the CUDA handles are process-wide driver objects, usable from any thread once the
// context is pushed (every use pushes it); a `Share` is used under a mutex.
unsafe impl Send for Share {}

/// The context pushed for a scope, popped when it ends.
struct Pushed<'a>(&'a Api);

impl<'a> Pushed<'a> {
    fn new(api: &'a Api, context: CuContext) -> Result<Pushed<'a>, String> {
        // SAFETY: a context from cuDevicePrimaryCtxRetain, alive for the process.
        api.check(unsafe { (api.ctx_push)(context) }, "cuCtxPushCurrent")?;
        Ok(Pushed(api))
    }
}

impl Drop for Pushed<'_> {
    fn drop(&mut self) {
        let mut popped: CuContext = std::ptr::null_mut();
        // SAFETY: pops the context `new` pushed on this thread.
        unsafe { (self.0.ctx_pop)(&mut popped) };
    }
}

/// A 2-D device-to-device copy on `stream`: `rows` rows of `row_bytes`.
struct Copy2d {
    src: CuDevicePtr,
    src_pitch: usize,
    dst: CuDevicePtr,
    dst_pitch: usize,
    row_bytes: usize,
    rows: usize,
}

impl Share {
    /// Sharing between `gpu` and CUDA device `ordinal`, or why it is impossible (no CUDA
    /// driver, `gpu` is another GPU, or the drivers share no memory).
    pub(crate) fn new(gpu: Arc<Gpu>, ordinal: i32) -> Result<Share, String> {
        let api = api()?;
        let mut device: CuDevice = 0;
        // SAFETY (the driver calls below): out-pointers to locals, handles from the driver.
        api.check(
            unsafe { (api.device_get)(&mut device, ordinal) },
            "cuDeviceGet",
        )?;
        let mut uuid = [0u8; 16];
        api.check(
            unsafe { (api.device_get_uuid)(&mut uuid, device) },
            "cuDeviceGetUuid",
        )?;
        match gpu.device_uuid() {
            Some(ours) if ours == uuid => {}
            Some(_) => {
                return Err(format!(
                    "the tensor is on CUDA device {ordinal}, another GPU than texelflow's ({})",
                    gpu.info().name
                ))
            }
            None => {
                return Err(format!(
                    "texelflow's device ({}) is not a Vulkan one",
                    gpu.info().name
                ))
            }
        }
        let mut context: CuContext = std::ptr::null_mut();
        api.check(
            unsafe { (api.primary_ctx_retain)(&mut context, device) },
            "cuDevicePrimaryCtxRetain",
        )?;
        let _pushed = Pushed::new(api, context)?;
        let mut copied_out: CuEvent = std::ptr::null_mut();
        api.check(
            unsafe { (api.event_create)(&mut copied_out, CU_EVENT_DISABLE_TIMING) },
            "cuEventCreate",
        )?;
        let mut share = Share {
            api,
            gpu,
            ordinal,
            context,
            input: None,
            output: None,
            copied_out,
            last_ms: [0.0; 3],
            import_tries: 0,
            prepared: Vec::new(),
        };
        // prove the whole route once, so that a driver that cannot import says so here (and
        // the caller falls back) rather than on the first run. The first import of a process
        // has failed once in a while with CUDA_ERROR_UNKNOWN on the GPU machine (gVisor) and
        // then worked: a refusal counts after three tries
        let mut tries = 0;
        share.input = Some(loop {
            tries += 1;
            match share.shared(4096) {
                Ok(s) => break s,
                Err(e) if tries >= 3 => return Err(format!("{e}, {tries} times")),
                Err(_) => {}
            }
        });
        share.import_tries = tries;
        Ok(share)
    }

    /// The CUDA device this share is for.
    pub(crate) fn ordinal(&self) -> i32 {
        self.ordinal
    }

    /// A new shared buffer of `bytes`, imported into CUDA (the context must be current).
    fn shared(&self, bytes: u64) -> Result<Shared, String> {
        let api = self.api;
        let mut buffer = self.gpu.export_buffer(bytes).map_err(|e| e.to_string())?;
        let fd = buffer
            .take_fd()
            .ok_or("the shared buffer has no descriptor")?;
        let desc = ExternalMemoryHandleDesc {
            kind: CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
            fd: [fd.into_raw_fd(), 0, 0, 0],
            size: buffer.allocation_size(),
            flags: if buffer.dedicated() {
                CUDA_EXTERNAL_MEMORY_DEDICATED
            } else {
                0
            },
            reserved: [0; 16],
        };
        let mut memory: CuExternalMemory = std::ptr::null_mut();
        // SAFETY: a valid descriptor of memory the driver exported; on success CUDA owns the
        // file descriptor, on failure it is ours to close.
        let r = unsafe { (api.import_external_memory)(&mut memory, &desc) };
        if let Err(e) = api.check(r, "cuImportExternalMemory") {
            // SAFETY: the descriptor CUDA did not take.
            drop(unsafe {
                <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(desc.fd[0])
            });
            return Err(e);
        }
        let range = ExternalMemoryBufferDesc {
            offset: 0,
            size: bytes,
            flags: 0,
            reserved: [0; 16],
        };
        let mut ptr: CuDevicePtr = 0;
        // SAFETY: maps the range just imported.
        let r = unsafe { (api.external_memory_mapped_buffer)(&mut ptr, memory, &range) };
        if let Err(e) = api.check(r, "cuExternalMemoryGetMappedBuffer") {
            // SAFETY: the memory imported above, unused.
            unsafe { (api.destroy_external_memory)(memory) };
            return Err(e);
        }
        Ok(Shared {
            buffer,
            memory,
            ptr,
        })
    }

    /// `slot`'s buffer, replaced by one of at least `bytes` where smaller.
    fn ensure(&mut self, output: bool, bytes: u64) -> Result<(), String> {
        let have = if output { &self.output } else { &self.input };
        if have
            .as_ref()
            .is_some_and(|s| s.buffer.buffer().size() >= bytes)
        {
            return Ok(());
        }
        // a smaller buffer goes first (CUDA's mapping, then the memory); the next size up is
        // a whole 1/8 step more, so a stream of slowly growing images does not reallocate
        // every time
        let slot = if output {
            &mut self.output
        } else {
            &mut self.input
        };
        if let Some(old) = slot.take() {
            // the runs prepared on the old buffer go first
            self.prepared.clear();
            self.release(old);
        }
        let bytes = (bytes.div_ceil(8).saturating_mul(9)).div_ceil(256) * 256;
        let fresh = self.shared(bytes)?;
        *(if output {
            &mut self.output
        } else {
            &mut self.input
        }) = Some(fresh);
        Ok(())
    }

    fn release(&self, s: Shared) {
        // SAFETY: the mapping and the import made in `shared`, no longer used (the caller
        // waited for every copy: `copied_out` or the stream).
        unsafe {
            (self.api.mem_free)(s.ptr);
            (self.api.destroy_external_memory)(s.memory);
        }
        drop(s.buffer);
    }

    fn copy(&self, c: &Copy2d, stream: CuStream, what: &str) -> Result<(), String> {
        let m = Memcpy2d {
            src_x_in_bytes: 0,
            src_y: 0,
            src_memory_type: CU_MEMORYTYPE_DEVICE,
            src_host: std::ptr::null(),
            src_device: c.src,
            src_array: std::ptr::null_mut(),
            src_pitch: c.src_pitch,
            dst_x_in_bytes: 0,
            dst_y: 0,
            dst_memory_type: CU_MEMORYTYPE_DEVICE,
            dst_host: std::ptr::null_mut(),
            dst_device: c.dst,
            dst_array: std::ptr::null_mut(),
            dst_pitch: c.dst_pitch,
            width_in_bytes: c.row_bytes,
            height: c.rows,
        };
        // SAFETY: device pointers the caller vouched for (the tensors) and our mappings.
        self.api
            .check(unsafe { (self.api.memcpy_2d_async)(&m, stream) }, what)
    }

    /// `count` images, all on `stream`: the tensors at `src` (each `src.step` bytes after the
    /// last) into the shared input in texelflow's layout `input`, then `run` (texelflow from
    /// the shared input to the shared output on `k` images lying a slot apart, waiting for
    /// its queue), then the results, in layout `output`, into the tensors at `dst`. Images go
    /// in chunks of at most `CHUNK_BYTES`, one `run` each.
    pub(crate) fn run(
        &mut self,
        stream: usize,
        (src, input): (Rows, Plane),
        (dst, output): (Rows, Plane),
        count: u64,
        mut run: impl FnMut(Slots<'_>) -> texelflow::Result<()>,
    ) -> Result<(), RunError> {
        let stream = stream as CuStream;
        let t0 = std::time::Instant::now();
        let _pushed = Pushed::new(self.api, self.context).map_err(RunError::Cuda)?;
        let (in_slot, out_slot) = (input.slot(), output.slot());
        let chunk = (CHUNK_BYTES / in_slot.max(out_slot)).clamp(1, count.max(1));
        self.ensure(false, chunk * in_slot)
            .map_err(RunError::Cuda)?;
        self.ensure(true, chunk * out_slot)
            .map_err(RunError::Cuda)?;
        let (Some(inp), Some(outp)) = (&self.input, &self.output) else {
            return Err(RunError::Cuda("the shared buffers are missing".into()));
        };
        let api = self.api;
        let (mut wait_ms, mut run_ms) = (0.0, 0.0);
        let mut first = 0;
        while first < count {
            let k = chunk.min(count - first);
            for i in 0..k {
                self.copy(
                    &Copy2d {
                        src: src.ptr + (first + i) * src.step,
                        src_pitch: src.pitch,
                        dst: inp.ptr + i * in_slot,
                        dst_pitch: input.pitch,
                        row_bytes: input.row_bytes,
                        rows: input.rows,
                    },
                    stream,
                    "copying the tensor in (cuMemcpy2DAsync)",
                )
                .map_err(RunError::Cuda)?;
            }
            // the caller's work before this call and the copies in are done; so is the last
            // copy out of the shared output, whatever stream it was on
            let t = std::time::Instant::now();
            // SAFETY: the caller's stream handle (its `__cuda_array_interface__`) and our event.
            api.check(
                unsafe { (api.stream_synchronize)(stream) },
                "cuStreamSynchronize",
            )
            .map_err(RunError::Cuda)?;
            api.check(
                unsafe { (api.event_synchronize)(self.copied_out) },
                "cuEventSynchronize",
            )
            .map_err(RunError::Cuda)?;
            let t1 = std::time::Instant::now();
            run(Slots {
                input: (inp.buffer.buffer(), in_slot),
                output: (outp.buffer.buffer(), out_slot),
                count: k as u32,
                prepared: &mut self.prepared,
            })
            .map_err(RunError::Texelflow)?;
            wait_ms += (t1 - t).as_secs_f64() * 1e3;
            run_ms += t1.elapsed().as_secs_f64() * 1e3;
            for i in 0..k {
                self.copy(
                    &Copy2d {
                        src: outp.ptr + i * out_slot,
                        src_pitch: output.pitch,
                        dst: dst.ptr + (first + i) * dst.step,
                        dst_pitch: dst.pitch,
                        row_bytes: output.row_bytes,
                        rows: output.rows,
                    },
                    stream,
                    "copying the result out (cuMemcpy2DAsync)",
                )
                .map_err(RunError::Cuda)?;
            }
            // SAFETY: our event, recorded on the caller's stream after the copies out.
            api.check(
                unsafe { (api.event_record)(self.copied_out, stream) },
                "cuEventRecord",
            )
            .map_err(RunError::Cuda)?;
            first += k;
        }
        let total = t0.elapsed().as_secs_f64() * 1e3;
        self.last_ms = [wait_ms, run_ms, total - wait_ms - run_ms];
        Ok(())
    }
}

/// Most bytes of images (in or out) a chunk of a batch puts in one shared buffer: 32 1080p
/// RGBA8 images, few enough to stay inside any device's binding limit.
const CHUNK_BYTES: u64 = 1 << 28;

/// The shared buffers of one chunk: (buffer, bytes between images) in and out, and how many.
pub(crate) struct Slots<'a> {
    pub(crate) input: (&'a wgpu::Buffer, u64),
    pub(crate) output: (&'a wgpu::Buffer, u64),
    pub(crate) count: u32,
    /// The runs prepared on these buffers so far (the caller keeps what it prepares here).
    pub(crate) prepared: &'a mut PreparedRuns,
}

/// A tensor's rows: its first byte's device address and the distance between rows, bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub(crate) ptr: u64,
    pub(crate) pitch: usize,
    /// Bytes from one image to the next (a batch).
    pub(crate) step: u64,
}

/// An image in texelflow's layout: `rows` rows of `row_bytes`, `pitch` apart.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plane {
    pub(crate) row_bytes: usize,
    pub(crate) rows: usize,
    pub(crate) pitch: usize,
}

impl Plane {
    /// Bytes an image takes in a shared buffer: whole 256-byte blocks, so every image of a
    /// batch starts where any binding or copy may.
    fn slot(&self) -> u64 {
        ((self.pitch as u64) * (self.rows as u64)).div_ceil(256) * 256
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        self.prepared.clear();
        if let Ok(_pushed) = Pushed::new(self.api, self.context) {
            // SAFETY: our event; every copy it follows is waited for before the buffers go.
            unsafe { (self.api.event_synchronize)(self.copied_out) };
            for s in [self.input.take(), self.output.take()]
                .into_iter()
                .flatten()
            {
                self.release(s);
            }
        }
    }
}

/// Why a CUDA run failed: on the CUDA side, or texelflow's own error.
pub(crate) enum RunError {
    Cuda(String),
    Texelflow(texelflow::Error),
}
