"""texelflow: GPU image processing on wgpu compute shaders, numpy in and numpy out.

    >>> import numpy as np, texelflow
    >>> img = np.zeros((480, 640, 4), np.uint8)
    >>> out = texelflow.apply(img, "gaussian_blur(sigma=2) | sobel_edge_detection")
    >>> blur = texelflow.Pipeline("gaussian_blur(sigma=2)")      # parsed once, kernels compiled once
    >>> outs = blur.run_batch([img, img, img])                   # several images in flight

Arrays are HWC: ``uint8`` (H, W) grey, (H, W, 3) RGB or (H, W, 4) RGBA; ``uint16`` and
``float32`` (values in [0, 1]) with 1, 3 or 4 channels, C-contiguous or not (gathered
straight into the GPU's upload memory: no intermediate copy). Results come back in the
input's layout where the pipeline keeps it (RGB in, RGB out; float32 in, float32 out);
image results are numpy arrays over the GPU's read-back memory (no copy), data results
(histograms, statistics, corner lists) are dicts with the fields ``texelflow apply --data``
writes. Errors carry the CLI's one-line messages: ``ValueError`` for bad specs, parameters
and arrays, ``OSError`` for unreadable files, ``RuntimeError`` for device problems.

The device: ``device="auto"`` (default) takes the GPU ``CUDA_VISIBLE_DEVICES`` names (as CUDA
and Ray mean it), else the best GPU, and falls back to the CPU reference implementation, with a
``TexelflowWarning``, when there is none or the only one is a software rasterizer (lavapipe,
llvmpipe); ``"gpu"`` fails instead (and runs on a software rasterizer); ``"cpu"`` (or
``cpu=True``) runs the CPU reference. ``backend`` ("vulkan", "metal", "dx12", "gl") and
``adapter`` (a device selector: an index as ``devices()`` lists them, a PCI bus id
``0000:65:00.0``, a UUID ``GPU-...`` as nvidia-smi prints it, or part of the adapter's name)
choose among GPUs.
See docs/python.md.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

# Mesa's Vulkan device-selection layer looks for the desktop's GPU by connecting to a Wayland
# display, and without a session (a Ray worker, a service, ssh: no XDG_RUNTIME_DIR) libwayland
# prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on each adapter
# enumeration, twice per device open. texelflow ranks adapters itself and needs no display, so
# where there is no session the layer is turned off (its documented switch) before the first
# device is opened; setting NODEVICE_SELECT yourself, or XDG_RUNTIME_DIR, leaves it alone.
if "XDG_RUNTIME_DIR" not in os.environ:
    os.environ.setdefault("NODEVICE_SELECT", "1")

from . import _texelflow as _native  # noqa: E402
from . import _cuda  # noqa: E402

__all__ = [
    "apply",
    "apply_file",
    "process_video",
    "analyze",
    "Pipeline",
    "Kernel",
    "Graph",
    "Port",
    "list_filters",
    "quote",
    "batch_plan",
    "devices",
    "device_name",
    "is_pinned",
    "TexelflowWarning",
]

__version__: str = _native.__version__

Port = _native.Port

_SUPPORTED = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))


class TexelflowWarning(UserWarning):
    """What texelflow changed that the caller should know: a fallback to the CPU, a 16-bit
    image narrowed to 8 bits before a filter that takes 8-bit images only."""


def _device(device: str, cpu: bool) -> str:
    return "cpu" if cpu else device


def _check_array(array: Any, what: str = "image") -> np.ndarray:
    """The array as numpy, after the checks whose messages are clearer here than natively."""
    if not isinstance(array, np.ndarray):
        array = np.asarray(array)
    if array.dtype.newbyteorder("=") in _SUPPORTED and not array.dtype.isnative:
        raise ValueError(f"{what}: the array's byte order is not the machine's; use array.astype(array.dtype.newbyteorder('='))")
    if array.dtype not in _SUPPORTED:
        hint = " (convert with .astype(np.float32))" if array.dtype.kind == "f" else ""
        raise ValueError(f"{what}: arrays must be uint8, uint16 or float32, got {array.dtype}{hint}")
    if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (1, 3, 4)):
        raise ValueError(f"{what}: arrays must be (height, width) or (height, width, 1|3|4), got shape {array.shape}")
    return array


def _like_input(out: Any, array: np.ndarray) -> Any:
    """Gives an image result the input's layout where the pipeline kept it: RGB in, RGB out
    (the alpha the GPU layout adds is dropped, as a view); (H, W, 1) in, (H, W, 1) out;
    float32 in, float32 out (8- and 16-bit results scaled to [0, 1])."""
    if not isinstance(out, np.ndarray):
        return out
    channels = 1 if array.ndim == 2 else array.shape[2]
    if out.ndim == 3 and out.shape[2] == 4 and channels == 3:
        out = out[..., :3]
    elif out.ndim == 2 and array.ndim == 3 and array.shape[2] == 1:
        out = out[..., np.newaxis]
    if array.dtype == np.float32 and out.dtype != np.float32:
        scale = 255.0 if out.dtype == np.uint8 else 65535.0
        out = out.astype(np.float32) / np.float32(scale)
    return out


def _warn(notes: Iterable[str]) -> None:
    for note in notes:
        warnings.warn(note, TexelflowWarning, stacklevel=3)


class Pipeline:
    """A pipeline spec parsed once and bound to a device, to run on many images.

    ``Pipeline("gaussian_blur(sigma=2) | sobel_edge_detection")``: filters separated by ``|``
    as in ``texelflow apply -p``. Image parameters (``alpha_blend(with=logo.png)``) name a
    file, or a key of ``images`` whose value is an array. Kernels compile on the first run
    and stay cached on the device; staging and GPU buffers are reused from run to run.
    """

    def __init__(
        self,
        spec: str,
        *,
        device: str = "auto",
        cpu: bool = False,
        backend: Optional[str] = None,
        adapter: Optional[str] = None,
        images: Optional[Mapping[str, np.ndarray]] = None,
    ) -> None:
        checked = None if images is None else {k: _check_array(v, f"images[{k!r}]") for k, v in images.items()}
        spec = str(spec)  # a Kernel is its spec call
        self._native = _native.Pipeline(spec, _device(device, cpu), backend, adapter, checked)
        note = self._native.fallback_note
        if note:
            warnings.warn(note, TexelflowWarning, stacklevel=2)

    @property
    def spec(self) -> str:
        """The spec this pipeline was parsed from."""
        return self._native.spec

    @property
    def device(self) -> str:
        """Where it runs, e.g. ``"NVIDIA H100 80GB HBM3 (vulkan)"`` or ``"CPU reference"``."""
        return self._native.device

    @property
    def last_host_times(self) -> Dict[str, float]:
        """Host-side times of the last ``run``, ms: upload (gathering the array into staging
        memory), record, wait (for the GPU), readback (mapping the results)."""
        return self._native.last_host_times

    def run(self, image: Any, *, channels_first: bool = False) -> Any:
        """Runs on one image; returns an array (an image result) or a dict (a data result).

        A CUDA tensor (torch, CuPy: anything with ``__cuda_array_interface__``) gives a tensor
        of the same kind on the same device, with no host copy where texelflow's GPU can
        share memory with CUDA (else through host memory, with a warning once): (H, W[, C]),
        or (C, H, W) with ``channels_first``, and a batch (N, ...) image by image; uint8,
        uint16, float16 or float32. Its stream's earlier work is waited for; the result is
        written on that stream."""
        if _cuda.is_cuda(image):
            return _cuda.run(self, image, channels_first)
        if channels_first:
            raise ValueError("channels_first is for CUDA tensors; transpose a numpy array with np.moveaxis(a, 0, -1)")
        array = _check_array(image)
        out, notes = self._native.run(array)
        _warn(notes)
        return _like_input(out, array)

    __call__ = run

    def input_array(self, shape: Tuple[int, ...], dtype: Any = np.uint8) -> np.ndarray:
        """A zeroed array whose memory is the device's upload staging memory ("pinned", as
        ``torch.empty(..., pin_memory=True)``): write an image into it (``np.copyto(a, img)``,
        ``a[:] = ...``, decode into it) and ``run`` it, and the upload is the GPU's copy alone,
        with no host copy. ``shape``: (H, W, 4) or (H, W) / (H, W, 1) for ``uint8``, (H, W, 4)
        for ``uint16`` (the GPU's own layouts; convert RGB or float32 into it on the host).

        The array keeps its buffer (and the device) alive, so it stays valid whatever happens to
        this pipeline; every pipeline on the same device uploads it without a host copy, others
        (and ``texelflow.apply``, whose pipeline shares the device) read it as an ordinary
        array. ``run`` uses the buffer synchronously: write the next image after ``run``
        returns (writes from another thread during a run race with the GPU's copy). Slices and
        views of it are ordinary arrays. Reading from it is slow on GPUs whose upload memory is
        write-combined; keep it for writing. On the CPU, and on backends whose mappings may
        move (DX12, GL), it is an ordinary array (``texelflow.is_pinned`` tells)."""
        shape = tuple(int(v) for v in shape)
        dt = np.dtype(dtype)
        layouts = {(np.dtype(np.uint8), 4), (np.dtype(np.uint8), 1), (np.dtype(np.uint16), 4)}
        if len(shape) not in (2, 3):
            raise ValueError(f"input_array: shape must be (height, width) or (height, width, channels), got {shape}")
        if min(shape[:2]) < 1:
            raise ValueError(f"input_array: height and width must be at least 1, got shape {shape}")
        channels = 1 if len(shape) == 2 else shape[2]
        if (dt, channels) not in layouts:
            raise ValueError(
                f"input_array: the GPU's layouts are uint8 (H, W, 4), (H, W) or (H, W, 1) and uint16 (H, W, 4), not {dt} with shape {shape}; "
                "fill an ordinary array instead (RGB and float32 are converted during the upload)"
            )
        array = self._native.input_array(shape[0], shape[1], channels, dt.name)
        if array is None:
            return np.zeros(shape, dt)
        return array[..., np.newaxis] if len(shape) == 3 and channels == 1 else array

    def run_batch(self, images: Union[Sequence[np.ndarray], np.ndarray], *, in_flight: int = 4) -> Union[List[Any], np.ndarray]:
        """Runs on many images, ``in_flight`` at once (one uploads while another computes and
        a third is read back), with the GIL released throughout. ``images``: a sequence of
        arrays (sizes may differ; returns a list in the same order), or one (N, H, W[, C])
        array (returns one (N, ...) array when every result is an image)."""
        if _cuda.is_cuda(images):
            return _cuda.run(self, images if images.ndim == 4 else images[..., None])
        stacked = isinstance(images, np.ndarray) and images.ndim in (3, 4) and images.dtype in _SUPPORTED
        arrays = [_check_array(a) for a in (list(images) if not stacked else [images[i] for i in range(images.shape[0])])]
        results = self._native.run_batch(arrays, in_flight)
        outs = []
        for (out, notes), array in zip(results, arrays):
            _warn(notes)
            outs.append(_like_input(out, array))
        if stacked and outs and all(isinstance(o, np.ndarray) for o in outs):
            return np.stack(outs)
        return outs

    def apply_batch(
        self,
        inputs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
        out_dir: Union[str, "os.PathLike[str]"],
        *,
        name: str = "{stem}.{ext}",
        recursive: bool = False,
        jobs: Optional[int] = None,
        gpu_jobs: Optional[int] = None,
        overwrite: bool = False,
        skip_existing: bool = False,
        jpeg_quality: int = 90,
        allow_truncated: bool = False,
        host_decode: bool = False,
        host_encode: bool = False,
        stream: Optional[bool] = None,
        shrink_on_load: bool = True,
        timings: bool = False,
    ) -> Dict[str, Any]:
        """Runs on image files, as ``texelflow apply IN... --out-dir DIR`` does, in this process
        and on this pipeline's device (kept open: a second call is warm, its kernels compiled).

        ``inputs``: files, folders (their image files; ``recursive`` descends) and names with
        ``*`` or ``?``. Each output is ``out_dir`` / (the input's folder below the one given) /
        ``name`` (``{stem}``, ``{name}``, ``{ext}``; the extension picks the format), written
        through a temporary file renamed into place with the input's ICC profile and EXIF.
        ``jobs`` workers (default: one per core) decode and encode while ``gpu_jobs`` images
        (default 4; on the CPU, ``jobs``) run on the device; JPEGs are decoded and encoded on
        the GPU unless ``host_decode`` / ``host_encode``. An existing output is refused (counted
        as failed) unless ``overwrite`` or ``skip_existing``. The GIL is released throughout.

        A file that fails (missing, corrupt, not an image) does not raise: it is listed in
        ``failed``; a batch that cannot start (no image files, an output that is an input, two
        inputs with one output, an output folder that cannot be written) raises ``ValueError``
        or ``OSError``. Returns ``{"done": int, "skipped": int, "failed": [(path, reason)],
        "wall": seconds, "notes": [...], "warnings": [...]}``, and with ``timings`` ``"times"``:
        per written file, ``{"file", "decode_ms", "run_ms", "gpu_ms", "encode_ms", ...}``."""
        if isinstance(inputs, (str, os.PathLike)):
            inputs = [inputs]
        r = self._native.apply_batch(
            [os.fspath(p) for p in inputs],
            os.fspath(out_dir),
            name,
            recursive,
            jobs,
            gpu_jobs,
            overwrite,
            skip_existing,
            jpeg_quality,
            allow_truncated,
            host_decode,
            host_encode,
            stream,
            shrink_on_load,
            timings,
        )
        r["failed"] = [(path, why) for path, why in r["failed"]]
        _warn(r.get("warnings", []))
        return r

    def __repr__(self) -> str:
        return f"Pipeline({self.spec!r}, device={self.device!r})"


def apply(
    image: np.ndarray,
    spec: str,
    *,
    device: str = "auto",
    cpu: bool = False,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    images: Optional[Mapping[str, np.ndarray]] = None,
) -> Union[np.ndarray, Dict[str, Any]]:
    """Applies a pipeline spec to one image: ``apply(img, "brightness(0.1) | contrast(1.2)")``.

    The device is opened once per process and kept; to run one spec on many images, a
    ``Pipeline`` also parses it once."""
    return Pipeline(spec, device=device, cpu=cpu, backend=backend, adapter=adapter, images=images).run(image)


def apply_file(
    input: Union[str, "os.PathLike[str]"],
    output: Union[str, "os.PathLike[str]"],
    spec: str,
    *,
    device: str = "auto",
    cpu: bool = False,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    allow_truncated: bool = False,
    jpeg_quality: int = 90,
    stream: Optional[bool] = None,
    shrink_on_load: bool = True,
    host_encode: bool = False,
) -> Dict[str, Any]:
    """Reads ``input``, applies ``spec`` and writes ``output`` (through a temporary file renamed
    into place), as ``texelflow apply IN OUT`` does: an image of 64 megapixels or more
    (``stream=True``: any) streams through in bands of rows where the pipeline can run in tiles,
    so that a 20000x20000 PNG never needs to fit in memory whole (docs/cli.md, "Large
    images"); else the file is decoded whole. The input's ICC profile and EXIF are kept.

    Shrink-on-load (``shrink_on_load=True``, the default): where ``spec`` begins with a
    ``resize`` to a fixed size at most half the input's in both axes, a JPEG is decoded at the
    DCT scale (1/2, 1/4, 1/8) that keeps that size and resized from there: faster, within 4
    levels of the full decode + ``resize(method=area)`` on photos (docs/python.md).
    ``shrink_on_load=False`` decodes in full (the CLI's ``--no-shrink-on-load``).

    A JPEG output of a whole run on a GPU is encoded there too (colour conversion, DCT,
    quantisation and Huffman coding; only the file's bytes are read back): the same file the
    host writes. ``host_encode=True`` encodes on the host (the CLI's ``--host-encode``).

    Returns ``{"streamed": bool, "notes": [...], "warnings": [...]}``; warnings (a damaged file
    accepted with ``allow_truncated``) are also issued as ``TexelflowWarning``."""
    r = _native.apply_file(os.fspath(input), os.fspath(output), spec, _device(device, cpu), backend, adapter, allow_truncated, jpeg_quality, stream, shrink_on_load, host_encode)
    _warn(r.get("warnings", []))
    return r


def process_video(
    input: Union[str, "os.PathLike[str]"],
    output: Union[str, "os.PathLike[str]"],
    spec: str,
    *,
    device: str = "auto",
    cpu: bool = False,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    codec: Optional[str] = None,
    crf: Optional[int] = None,
    pix_fmt: Optional[str] = None,
    fps: Union[str, float, None] = None,
    no_clobber: bool = False,
    jobs: int = 3,
    transfer: str = "auto",
    data: bool = False,
) -> Dict[str, Any]:
    """Runs ``spec`` on every frame of the video ``input`` and writes ``output``, as
    ``texelflow apply in.mp4 out.mp4 -p SPEC`` does (docs/cli.md, "Video"): ``ffmpeg`` and
    ``ffprobe`` must be on PATH; temporal filters (``low_pass``, ``motion_detector``) keep
    their state from frame to frame; the audio, subtitles and metadata are kept; the file is
    written under a temporary name and renamed when complete. ``codec``, ``crf``, ``pix_fmt``,
    ``fps``, ``no_clobber``, ``jobs`` (frames in flight) and ``transfer`` (``"auto"``,
    ``"rgba"``, ``"yuv420p"``) are the CLI's flags; with ``data=True`` a pipeline ending in
    data writes one JSON line per frame to ``output`` (CSV rows for ``.csv``).

    Returns a dict: ``frames`` (written), ``expected_frames``, ``input_size``, ``output_size``
    and ``encoded_size`` (``[w, h]``; ``None`` with ``data``), ``rate``, ``fps``, ``transfer``,
    ``codec``, ``pix_fmt``, ``notes``, ``seconds``. A bad input or option raises ``OSError``
    with one line."""
    rate = None if fps is None else str(fps)
    return _native.process_video(
        os.fspath(input), os.fspath(output), spec, _device(device, cpu), backend, adapter,
        codec, crf, pix_fmt, rate, no_clobber, jobs, transfer, data,
    )


def _bins_to_numpy(d: Dict[str, Any]) -> Dict[str, Any]:
    h = d.get("histogram", {})
    for channel, bins in h.items():
        if isinstance(bins, list):
            h[channel] = np.asarray(bins, dtype=np.uint64)
    return d


def analyze(
    image: np.ndarray,
    *,
    device: str = "auto",
    cpu: bool = False,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
) -> Dict[str, Any]:
    """What ``texelflow analyze --json`` prints (without ``file``): ``width``, ``height``,
    ``backend``, per-channel ``min``/``max``/``mean`` (``channels``: r, g, b, a, y = BT.601
    luma), ``mean_luminance``, ``mean_saturation``, per-channel histograms (``histogram``:
    channel -> 256 counts as a uint64 array, the shape of ``apply``'s histogram data) and
    ``levels`` (per channel: p05, p50, p95, clipped_low, clipped_high), from one
    GPU submission. 16-bit and float images are narrowed to 8 bits first, as the CLI does."""
    array = _check_array(image)
    return _bins_to_numpy(_native.analyze(array, _device(device, cpu), backend, adapter))


def list_filters() -> List[Dict[str, Any]]:
    """Every filter: ``name``, ``family``, ``summary``, ``doc``, ``gpuimage`` (the GPUImage
    filter it matches), ``params`` (each: name, kind, default, range, options, doc), ``inputs``
    and ``outputs`` (ports: name, kind "image" or a data kind) and ``formats`` (the image
    formats it takes, or None where that depends on its inputs)."""
    return _native.list_filters()


class Kernel:
    """A per-pixel WGSL kernel of your own, as one stage of a pipeline spec (``pixel_kernel``).

    ``Kernel(code="...", amount=0.3)`` or ``Kernel(file="warm.wgsl", amount=0.3)``: the source
    declares ``fn kernel(c: vec4<f32>, p: Params) -> vec4<f32>`` and ``struct Params`` of
    ``f32`` fields, which the named values fill by name. ``str(k)`` is its spec call, so it
    goes in a spec like any filter; it fuses with the per-pixel filters around it::

        warm = texelflow.Kernel(code=WARM, amount=0.3)
        out = texelflow.apply(img, f"brightness(0.1) | {warm} | contrast(1.2)")
        out = texelflow.Pipeline(warm).run(img)

    The source is checked when the spec is parsed (a ``ValueError`` naming ``line:column``).
    It has no CPU twin from Python (yet): on the CPU it is an error.
    """

    def __init__(self, code: Optional[str] = None, *, file: Optional[Union[str, "os.PathLike[str]"]] = None, **params: float) -> None:
        if (code is None) == (file is None):
            raise ValueError("Kernel: give code=... or file=..., one of them")
        for name, value in params.items():
            if not name.isidentifier() or not name.isascii():
                raise ValueError(f"Kernel: parameter name {name!r} is not an ASCII identifier")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"Kernel: parameter {name}={value!r} is not a number")
        self.code = code
        self.file = None if file is None else os.fspath(file)
        self.params: Dict[str, float] = {k: float(v) for k, v in params.items()}

    def spec(self) -> str:
        """The stage as a spec call: ``pixel_kernel(code="...", amount=0.3)``."""
        args = [f"code={quote(self.code)}" if self.code is not None else f"file={quote(str(self.file))}"]
        args += [f"{k}={v!r}" for k, v in self.params.items()]
        return f"pixel_kernel({', '.join(args)})"

    __str__ = spec

    def __or__(self, other: Any) -> str:
        return f"{self} | {other}"

    def __ror__(self, other: Any) -> str:
        return f"{other} | {self}"

    def __repr__(self) -> str:
        return f"Kernel({self.spec()})"


def batch_plan(
    inputs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    out_dir: Union[str, "os.PathLike[str]"],
    *,
    name: str = "{stem}.{ext}",
    recursive: bool = False,
) -> List[Tuple[str, str]]:
    """The ``(input, output)`` pairs ``Pipeline.apply_batch(inputs, out_dir, name=...,
    recursive=...)`` would write, with its checks made first (nothing runs or is written but
    the output folders' write check): folders listed (their subfolders with ``recursive``),
    ``name``'s ``{stem}``, ``{name}`` and ``{ext}`` applied. Raises ``ValueError`` where the
    batch would (an output that is an input, two inputs writing one output, no image files)."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    return [tuple(p) for p in _native.batch_plan([os.fspath(p) for p in inputs], os.fspath(out_dir), name=name, recursive=recursive)]


def quote(text: str) -> str:
    """``text`` quoted as one value of a pipeline spec: wrapped in ``"`` with ``\\`` and ``"``
    escaped, so the spec parser reads back exactly ``text`` whatever it holds (``,`` ``)``
    ``|`` quotes, spaces). Build specs from file names you do not control with it, never by
    pasting them in::

        texelflow.apply(img, f"lut_cube(file={texelflow.quote(path)})")
    """
    return _native.quote(str(text))


def devices(*, backend: Optional[str] = None, adapter: Optional[str] = None) -> List[Dict[str, Any]]:
    """The GPU adapters this machine offers, in texelflow's order (hardware GPUs by PCI bus
    id, then the rest: the ``index`` that ``adapter=`` takes): each ``index``, ``name``,
    ``backend``, ``type`` (DiscreteGpu, IntegratedGpu, Cpu for a software driver such as
    lavapipe, ...), ``driver``, ``vendor`` (PCI vendor id; 0x10de NVIDIA), ``pci_bus_id``
    (``"0000:65:00.0"`` or None), ``uuid`` (``"GPU-..."`` as nvidia-smi prints it, or None) and
    ``default`` (True for the one ``device="auto"`` opens; none where it runs the CPU
    reference). Empty without a GPU; the CPU reference is always available (``device="cpu"``)."""
    return _native.devices(backend, adapter)


def is_pinned(array: np.ndarray) -> bool:
    """Whether ``array`` is a whole array from ``Pipeline.input_array`` in the device's upload
    memory (a run on that device uploads it with a GPU copy alone)."""
    return isinstance(array, np.ndarray) and _native.is_pinned(array)


def device_name(device: str = "auto", *, backend: Optional[str] = None, adapter: Optional[str] = None) -> str:
    """The device ``device`` opens (and keeps for later calls), e.g. ``"CPU reference"``."""
    name, note = _native.open_device(device, backend, adapter)
    if note:
        warnings.warn(note, TexelflowWarning, stacklevel=2)
    return name


def _format_of(array: np.ndarray, widen_gray: bool) -> str:
    """The texelflow format an array enters a graph as (see docs/python.md, "Arrays")."""
    channels = 1 if array.ndim == 2 else array.shape[2]
    if array.dtype == np.uint8:
        return "rgba8" if widen_gray or channels != 1 else "gray8"
    return "rgba16"


class Graph:
    """A filter graph with fan-out, several inputs and data outputs, run in one GPU submission.

        g = texelflow.Graph()
        src = g.source("photo", like=img)
        blurred = g.add("gaussian_blur(sigma=3)", src)
        hist = g.add("histogram", blurred)
        g.output("blurred", blurred)
        g.output("hist", hist)
        results = g.run({"photo": img})      # {"blurred": array, "hist": {"histogram": ...}}

    Sources have a fixed size and format (build one graph per image size). Outputs are
    returned in the format the graph makes: (H, W, 4) uint8 for RGBA8, (H, W) uint8 for Gray8,
    uint16 for RGBA16, float32 for the float formats.
    """

    def __init__(self) -> None:
        self._native = _native.Graph()
        self._widen: Dict[str, bool] = {}

    def source(
        self,
        name: str,
        like: Optional[np.ndarray] = None,
        *,
        width: Optional[int] = None,
        height: Optional[int] = None,
        format: str = "rgba8",
        widen_gray: bool = False,
    ) -> Port:
        """An image input, shaped ``like`` an array (its size and the format it enters as:
        uint8 grey -> gray8, or rgba8 with ``widen_gray``; uint8 RGB/RGBA -> rgba8; uint16 and
        float32 -> rgba16), or given by ``width``, ``height`` and ``format``."""
        if like is not None:
            like = _check_array(like, f"source {name!r}")
            height, width = like.shape[:2]
            format = _format_of(like, widen_gray)
        if width is None or height is None:
            raise ValueError(f"source {name!r}: give `like=array` or `width` and `height`")
        self._widen[name] = widen_gray
        return self._native.source(name, int(width), int(height), format)

    def add(self, call: str, *inputs: Port) -> Union[Port, Tuple[Port, ...]]:
        """Adds one filter from a spec call (``"gaussian_blur(sigma=3)"``) reading ``inputs``
        (a blend reads two images, ``draw_points`` an image and points data); returns its
        output port, or a tuple of them for a filter with several outputs."""
        outs = self._native.add(call, list(inputs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def output(self, name: str, port: Port) -> None:
        """Marks ``port`` as a result named ``name``."""
        self._native.output(name, port)

    def run(
        self,
        sources: Mapping[str, np.ndarray],
        *,
        device: str = "auto",
        cpu: bool = False,
        backend: Optional[str] = None,
        adapter: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Runs with each source bound to an array; returns {output name: array or dict}."""
        checked = {k: _check_array(v, f"source {k!r}") for k, v in sources.items()}
        for name, array in checked.items():
            if self._widen.get(name) and array.dtype == np.uint8 and (array.ndim == 2 or array.shape[2] == 1):
                # declared rgba8 (widen_gray): grey replicated into RGB, alpha added natively
                checked[name] = np.repeat(array.reshape(array.shape[0], array.shape[1], 1), 3, axis=2)
        _warn(self._native.notes)
        return self._native.run(checked, _device(device, cpu), backend, adapter)
