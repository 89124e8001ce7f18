//! CUDA tensors in and out with no host copy: texelflow's input and output buffers are Vulkan
//! memory exported to CUDA (`texelflow::Gpu::export_buffer`), imported here with the CUDA
//! driver API, loaded at run time (`libcuda.so.1`: no CUDA at build time, and none needed where
//! no CUDA tensor is ever passed).
//!
//! One run: the tensor is copied into the shared input buffer on the caller's stream (a
//! device-to-device copy, rows re-pitched to texelflow's layout), texelflow runs from the shared
//! input into the shared output, and the result is copied into the caller's output tensor on
//! the caller's stream. The order is kept on the GPU where the driver shares a timeline
//! semaphore too (`texelflow::Gpu::export_semaphore`): the stream signals it after the copies
//! in, texelflow's submission waits for that value and signals the next, and the stream waits
//! for that before the copies out, so the call returns with nothing waited for on the host.
//! Elsewhere the host waits on both sides (the stream, then texelflow's queue). A run is
//! recorded once per shape and replayed (`texelflow::PreparedRun`). Before texelflow overwrites
//! its buffers in a later run, the previous copies out are done (the stream's order, or the
//! event `copied_out` where the stream is another).

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
type CuExternalSemaphore = *mut c_void;
type CuDevicePtr = u64;

/// `CUDA_EXTERNAL_MEMORY_HANDLE_DESC`: its handle union is 16 bytes, 8-aligned (it holds
/// pointers), so it starts at byte 8; the descriptor is its first `int`.
#[repr(C)]
struct ExternalMemoryHandleDesc {
    kind: c_uint,
    /// The union: the descriptor in its first 4 bytes (little-endian).
    handle: [u64; 2],
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// `CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC`, laid out as `ExternalMemoryHandleDesc`'s start.
#[repr(C)]
struct ExternalSemaphoreHandleDesc {
    kind: c_uint,
    handle: [u64; 2],
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS` and `..._WAIT_PARAMS` (the same layout: a 72-byte
/// `params` whose first field is the fence value, then flags and reserved words).
#[repr(C)]
struct ExternalSemaphoreParams {
    value: u64,
    rest: [u64; 8],
    flags: c_uint,
    reserved: [c_uint; 16],
}

impl ExternalSemaphoreParams {
    fn at(value: u64) -> Self {
        ExternalSemaphoreParams {
            value,
            rest: [0; 8],
            flags: 0,
            reserved: [0; 16],
        }
    }
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

// the layouts of cuda.h (x86-64 and aarch64 Linux)
const _: () = {
    assert!(std::mem::offset_of!(ExternalMemoryHandleDesc, handle) == 8);
    assert!(std::mem::offset_of!(ExternalMemoryHandleDesc, size) == 24);
    assert!(std::mem::size_of::<ExternalMemoryHandleDesc>() == 104);
    assert!(std::mem::offset_of!(ExternalSemaphoreHandleDesc, handle) == 8);
    assert!(std::mem::offset_of!(ExternalSemaphoreHandleDesc, flags) == 24);
    assert!(std::mem::size_of::<ExternalSemaphoreHandleDesc>() == 96);
    assert!(std::mem::offset_of!(ExternalSemaphoreParams, flags) == 72);
    assert!(std::mem::size_of::<ExternalSemaphoreParams>() == 144);
};

const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: c_uint = 1;
const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 1;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;
const CU_EVENT_DISABLE_TIMING: c_uint = 2;
const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD: c_uint = 9;

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
    stream_wait_event: unsafe extern "C" fn(CuStream, CuEvent, c_uint) -> CuResult,
    import_external_semaphore: unsafe extern "C" fn(
        *mut CuExternalSemaphore,
        *const ExternalSemaphoreHandleDesc,
    ) -> CuResult,
    signal_external_semaphores: unsafe extern "C" fn(
        *const CuExternalSemaphore,
        *const ExternalSemaphoreParams,
        c_uint,
        CuStream,
    ) -> CuResult,
    wait_external_semaphores: unsafe extern "C" fn(
        *const CuExternalSemaphore,
        *const ExternalSemaphoreParams,
        c_uint,
        CuStream,
    ) -> CuResult,
    destroy_external_semaphore: unsafe extern "C" fn(CuExternalSemaphore) -> CuResult,
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
                stream_wait_event: sym!(b"cuStreamWaitEvent\0"),
                import_external_semaphore: sym!(b"cuImportExternalSemaphore\0"),
                signal_external_semaphores: sym!(b"cuSignalExternalSemaphoresAsync\0"),
                wait_external_semaphores: sym!(b"cuWaitExternalSemaphoresAsync\0"),
                destroy_external_semaphore: sym!(b"cuDestroyExternalSemaphore\0"),
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
    /// Runs prepared on the shared buffers as they are, each with what it was prepared for
    /// (the image, how many, the bytes between images in and out); emptied before the buffers
    /// change.
    prepared: Vec<(
        (texelflow::ImageDesc, u32, u64, u64),
        texelflow::PreparedRun,
    )>,
    /// The pipeline cannot be prepared (it keeps state, or uploads data each run).
    unpreparable: bool,
    /// The timeline semaphore shared with CUDA, or why there is none.
    semaphore: Result<SharedSemaphore, String>,
    /// The stream of the last copies out, once there were some.
    last_stream: Option<CuStream>,
}

/// texelflow's timeline semaphore as CUDA imported it, and its last value handed out.
struct SharedSemaphore {
    vulkan: texelflow::ExportedSemaphore,
    cuda: CuExternalSemaphore,
    last: u64,
}

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
            unpreparable: false,
            semaphore: Err("not tried".into()),
            last_stream: None,
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
        share.semaphore = share.shared_semaphore();
        Ok(share)
    }

    /// texelflow's timeline semaphore imported into CUDA (the context must be current), or
    /// why not (the host then waits on both sides).
    fn shared_semaphore(&self) -> Result<SharedSemaphore, String> {
        let api = self.api;
        let mut vulkan = self.gpu.export_semaphore().map_err(|e| e.to_string())?;
        let fd = vulkan
            .take_fd()
            .ok_or("the shared semaphore has no descriptor")?;
        let raw_fd = fd.into_raw_fd();
        let desc = ExternalSemaphoreHandleDesc {
            kind: CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
            // the descriptor's bits in the union's first `int` (little-endian)
            handle: [u64::from(raw_fd as u32), 0],
            flags: 0,
            reserved: [0; 16],
        };
        let mut cuda: CuExternalSemaphore = std::ptr::null_mut();
        // SAFETY: a valid descriptor of a semaphore the driver exported; on success CUDA owns
        // the file descriptor, on failure it is ours to close.
        let r = unsafe { (api.import_external_semaphore)(&mut cuda, &desc) };
        if let Err(e) = api.check(r, "cuImportExternalSemaphore") {
            // SAFETY: the descriptor CUDA did not take.
            drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(raw_fd) });
            return Err(e);
        }
        Ok(SharedSemaphore {
            vulkan,
            cuda,
            last: 0,
        })
    }

    /// Why runs are not ordered by a shared semaphore (the host waits instead); `None` where
    /// they are.
    pub(crate) fn semaphore_note(&self) -> Option<&str> {
        self.semaphore.as_ref().err().map(String::as_str)
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
        let raw_fd = fd.into_raw_fd();
        let desc = ExternalMemoryHandleDesc {
            kind: CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
            // the descriptor's bits in the union's first `int` (little-endian)
            handle: [u64::from(raw_fd as u32), 0],
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
            drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(raw_fd) });
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
            // the last copies out (and so the last run) are done; the runs prepared on the old
            // buffer go first
            // SAFETY: our event.
            unsafe { (self.api.event_synchronize)(self.copied_out) };
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
    /// last) into the shared input in texelflow's layout `input`, then texelflow's run from the
    /// shared input to the shared output on `k` images lying a slot apart, then the results, in
    /// layout `output`, into the tensors at `dst`. Images go in chunks of at most
    /// `CHUNK_BYTES`. Each chunk's run is `prepare`d once per shape (`desc`, `k`, the slots)
    /// and replayed, ordered by the shared semaphore where there is one; a pipeline that
    /// cannot be prepared runs through `run` (which waits for its queue) each time.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        stream: usize,
        desc: texelflow::ImageDesc,
        (src, input): (Rows, Plane),
        (dst, output): (Rows, Plane),
        count: u64,
        mut prepare: impl FnMut(Slots<'_>) -> texelflow::Result<Option<texelflow::PreparedRun>>,
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
        let api = self.api;
        let (mut wait_ms, mut run_ms) = (0.0, 0.0);
        let mut first = 0;
        while first < count {
            let k = chunk.min(count - first);
            let t = std::time::Instant::now();
            let at = self.prepared_for(desc, k, (in_slot, out_slot), &mut prepare)?;
            run_ms += t.elapsed().as_secs_f64() * 1e3;
            let (Some(inp), Some(outp)) = (&self.input, &self.output) else {
                return Err(RunError::Cuda("the shared buffers are missing".into()));
            };
            let ordered = at.is_some() && self.semaphore.is_ok();
            if ordered && self.last_stream.is_some_and(|last| last != stream) {
                // the last copies out were on another stream: this one waits for them
                // SAFETY: the caller's stream handle and our event.
                api.check(
                    unsafe { (api.stream_wait_event)(stream, self.copied_out, 0) },
                    "cuStreamWaitEvent",
                )
                .map_err(RunError::Cuda)?;
            }
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
            let slots = || Slots {
                input: (inp.buffer.buffer(), in_slot),
                output: (outp.buffer.buffer(), out_slot),
                count: k as u32,
            };
            match (at, &mut self.semaphore) {
                (Some(i), Ok(sem)) => {
                    // on the GPU: the stream signals `a` after the copies in, texelflow's
                    // submission waits for `a` and signals `b`, the stream waits for `b`
                    let (a, b) = (sem.last + 1, sem.last + 2);
                    sem.last = b;
                    let t = std::time::Instant::now();
                    // SAFETY: our imported semaphore, on the caller's stream.
                    api.check(
                        unsafe {
                            (api.signal_external_semaphores)(
                                &sem.cuda,
                                &ExternalSemaphoreParams::at(a),
                                1,
                                stream,
                            )
                        },
                        "cuSignalExternalSemaphoresAsync",
                    )
                    .map_err(RunError::Cuda)?;
                    if let Err(e) = self.prepared[i].1.submit_between(&sem.vulkan, a, b) {
                        // the stream must not wait for a signal that will not come
                        let _ = sem.vulkan.signal(b);
                        return Err(RunError::Texelflow(e));
                    }
                    // SAFETY: as above.
                    api.check(
                        unsafe {
                            (api.wait_external_semaphores)(
                                &sem.cuda,
                                &ExternalSemaphoreParams::at(b),
                                1,
                                stream,
                            )
                        },
                        "cuWaitExternalSemaphoresAsync",
                    )
                    .map_err(RunError::Cuda)?;
                    run_ms += t.elapsed().as_secs_f64() * 1e3;
                }
                (at, _) => {
                    // on the host: the caller's work before this call and the copies in are
                    // done, and so is the last copy out of the shared output, whatever stream
                    // it was on
                    let t = std::time::Instant::now();
                    // SAFETY: the caller's stream handle and our event.
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
                    match at {
                        Some(i) => self.prepared[i].1.run(),
                        None => run(slots()),
                    }
                    .map_err(RunError::Texelflow)?;
                    wait_ms += (t1 - t).as_secs_f64() * 1e3;
                    run_ms += t1.elapsed().as_secs_f64() * 1e3;
                }
            }
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
            self.last_stream = Some(stream);
            first += k;
        }
        let total = t0.elapsed().as_secs_f64() * 1e3;
        self.last_ms = [wait_ms, run_ms, total - wait_ms - run_ms];
        Ok(())
    }

    /// The index in `prepared` of the run for `k` images of `desc` at these slots, prepared
    /// now where there is none yet (two shapes are kept: a batch's last chunk may be shorter);
    /// `None` where the pipeline cannot be prepared.
    fn prepared_for(
        &mut self,
        desc: texelflow::ImageDesc,
        k: u64,
        (in_slot, out_slot): (u64, u64),
        prepare: &mut impl FnMut(Slots<'_>) -> texelflow::Result<Option<texelflow::PreparedRun>>,
    ) -> Result<Option<usize>, RunError> {
        let key = (desc, k as u32, in_slot, out_slot);
        if let Some(i) = self.prepared.iter().position(|(kk, _)| *kk == key) {
            return Ok(Some(i));
        }
        if self.unpreparable {
            return Ok(None);
        }
        let (Some(inp), Some(outp)) = (&self.input, &self.output) else {
            return Err(RunError::Cuda("the shared buffers are missing".into()));
        };
        let made = prepare(Slots {
            input: (inp.buffer.buffer(), in_slot),
            output: (outp.buffer.buffer(), out_slot),
            count: k as u32,
        })
        .map_err(RunError::Texelflow)?;
        let Some(run) = made else {
            self.unpreparable = true;
            return Ok(None);
        };
        if self.prepared.len() >= 2 {
            self.prepared.remove(0);
        }
        self.prepared.push((key, run));
        Ok(Some(self.prepared.len() - 1))
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
        if let Ok(_pushed) = Pushed::new(self.api, self.context) {
            // SAFETY: our event; every copy it follows is waited for before the buffers go.
            unsafe { (self.api.event_synchronize)(self.copied_out) };
            // texelflow's last submission is retired before its runs and semaphore go
            let _ = self.gpu.device().poll(wgpu::PollType::wait_indefinitely());
            self.prepared.clear();
            if let Ok(sem) = &self.semaphore {
                // SAFETY: CUDA's import, no longer waited on or signalled.
                unsafe { (self.api.destroy_external_semaphore)(sem.cuda) };
            }
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
