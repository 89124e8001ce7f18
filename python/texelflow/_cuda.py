"""CUDA tensors (torch, CuPy, anything with ``__cuda_array_interface__``) through a pipeline
with no host copy: the tensor is copied on its own GPU into memory texelflow's Vulkan device
shares with CUDA, the pipeline runs there, and the result is copied into a new tensor of the
same kind on the same device (``crates/texelflow-py/src/cuda.rs``). Where memory cannot be
shared (another vendor's GPU, no CUDA driver, a driver that does not import Vulkan memory),
the same call goes through host memory and warns once."""

from __future__ import annotations

import warnings
from typing import Any, Dict, Tuple

import numpy as np

# kDLCUDA, kDLCUDAManaged in DLPack's device types
_DLPACK_CUDA = (2, 13)


def is_cuda(obj: Any) -> bool:
    """Whether ``obj`` is an array on a CUDA device (and not a numpy array)."""
    if isinstance(obj, np.ndarray):
        return False
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is None:
        return False
    try:
        return int(dev()[0]) in _DLPACK_CUDA
    except Exception:
        return False


def _kind(obj: Any) -> str:
    mod = type(obj).__module__.split(".")[0]
    if mod == "torch":
        return "torch"
    if mod == "cupy":
        return "cupy"
    return mod


def _ordinal(obj: Any) -> int:
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None:
        return int(dev()[1])
    device = getattr(obj, "device", None)
    return int(getattr(device, "index", None) or getattr(device, "id", 0) or 0)


class _Api:
    """What texelflow needs of the tensor's library: empty tensors and a few element-wise ops
    on the device, and the copies to and from numpy for the host route."""

    def __init__(self, like: Any):
        self.kind = _kind(like)
        if self.kind == "torch":
            import torch

            self.lib = torch
        elif self.kind == "cupy":
            import cupy

            self.lib = cupy
        else:
            raise ValueError(
                f"texelflow takes CUDA tensors of torch and CuPy (got {type(like).__module__}.{type(like).__name__}); "
                "convert it with torch.from_dlpack or cupy.from_dlpack"
            )
        self.device = like.device

    def empty(self, shape: Tuple[int, ...], dtype: str) -> Any:
        if self.kind == "torch":
            return self.lib.empty(shape, dtype=getattr(self.lib, dtype), device=self.device)
        with self.device:
            return self.lib.empty(shape, dtype=dtype)

    def to_numpy(self, t: Any) -> np.ndarray:
        if self.kind == "torch":
            return t.detach().cpu().numpy()
        return self.lib.asnumpy(t)

    def from_numpy(self, a: np.ndarray) -> Any:
        if self.kind == "torch":
            return self.lib.from_numpy(np.ascontiguousarray(a)).to(self.device)
        with self.device:
            return self.lib.asarray(a)

    def dtype_name(self, t: Any) -> str:
        return str(t.dtype).replace("torch.", "")

    def widen(self, t: Any, fill: int) -> Any:
        """(..., 3) -> (..., 4) with alpha ``fill``."""
        if self.kind == "torch":
            return self.lib.nn.functional.pad(t, (0, 1), value=fill)
        return self.lib.pad(t, [(0, 0)] * (t.ndim - 1) + [(0, 1)], constant_values=fill)

    def to_unorm16(self, t: Any) -> Any:
        """float in [0, 1] -> the bits of uint16 rounded as the numpy route does (as int16 for
        torch, whose uint16 has few operations)."""
        if self.kind == "torch":
            v = self.lib.nan_to_num(t.float(), nan=0.0).clamp(0.0, 1.0) * 65535.0 + 0.5
            return v.floor().to(self.lib.int32).to(self.lib.int16)
        v = self.lib.nan_to_num(t.astype(self.lib.float32), nan=0.0).clip(0.0, 1.0) * 65535.0 + 0.5
        return self.lib.floor(v).astype(self.lib.uint16)

    def from_unorm8(self, t: Any, dtype: str) -> Any:
        """An 8-bit result of a float image back to floats (/ 255, as the numpy route)."""
        if self.kind == "torch":
            return (t.float() / 255.0).to(getattr(self.lib, dtype))
        return (t.astype(self.lib.float32) / 255.0).astype(dtype)

    def from_unorm16(self, t: Any, dtype: str) -> Any:
        if self.kind == "torch":
            return ((t.to(self.lib.int32) & 0xFFFF).float() / 65535.0).to(getattr(self.lib, dtype))
        return (t.astype(self.lib.float32) / 65535.0).astype(dtype)


def _cai(t: Any) -> Dict[str, Any]:
    return t.__cuda_array_interface__


def _layout(t: Any) -> Tuple[int, int, int, int]:
    """(device address, bytes between images, bytes between rows, CUDA stream) of an
    (N, H, W[, C]) tensor whose rows are contiguous, or raises _NotRows."""
    cai = _cai(t)  # torch makes this dict anew each time: read once
    s = cai.get("stream")
    stream = 0 if s is None else int(s)
    ptr = int(cai["data"][0])
    shape = tuple(cai["shape"])
    item = np.dtype(cai["typestr"]).itemsize
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        row = item
        for dim in shape[2:]:
            row *= dim
        return ptr, row * shape[1], row, stream
    expect = item
    for dim, stride in zip(reversed(shape[2:]), reversed(strides[2:])):
        if dim != 1 and stride != expect:
            raise _NotRows()
        expect *= dim
    return ptr, int(strides[0]), int(strides[1]), stream


class _NotRows(Exception):
    pass


_WARNED: set = set()


def _warn_once(message: str) -> None:
    from . import TexelflowWarning

    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, TexelflowWarning, stacklevel=4)


def run(pipeline: Any, tensor: Any, channels_first: bool = False) -> Any:
    """``pipeline.run`` on a CUDA tensor (HWC, or CHW with ``channels_first``); a batch
    (NHWC / NCHW) image by image into one result."""
    api = _Api(tensor)
    if api.kind == "torch":
        tensor = tensor.detach()
    if channels_first:
        if tensor.ndim not in (3, 4):
            raise ValueError(f"channels_first: CUDA images must be (C, H, W) or (N, C, H, W), got shape {tuple(tensor.shape)}")
        order = (1, 2, 0) if tensor.ndim == 3 else (0, 2, 3, 1)
        out = run(pipeline, tensor.permute(*order) if api.kind == "torch" else tensor.transpose(order), False)
        if isinstance(out, dict):
            return out
        if out.ndim == tensor.ndim - 1:  # one channel came back as (.., H, W)
            out = out[..., None]
        back = (2, 0, 1) if tensor.ndim == 3 else (0, 3, 1, 2)
        out = out.permute(*back) if api.kind == "torch" else out.transpose(back)
        return out.contiguous() if api.kind == "torch" else api.lib.ascontiguousarray(out)
    shape = tuple(tensor.shape)
    if tensor.ndim not in (2, 3, 4) or (tensor.ndim >= 3 and shape[-1] not in (1, 3, 4)):
        raise ValueError(f"CUDA images must be (H, W), (H, W, 1|3|4) or a batch (N, H, W, 1|3|4), got shape {shape}")
    dtype = api.dtype_name(tensor)
    if dtype not in ("uint8", "uint16", "float16", "float32"):
        raise ValueError(f"CUDA images must be uint8, uint16, float16 or float32, got {dtype}")
    why = pipeline._native.cuda_share(_ordinal(tensor))
    if why is not None:
        _warn_once(f"texelflow: CUDA tensors go through host memory here ({why})")
        return _host(pipeline, api, tensor)
    return _shared(pipeline, api, tensor, dtype)


def _host(pipeline: Any, api: _Api, tensor: Any) -> Any:
    a = api.to_numpy(tensor)
    if a.ndim == 4:
        outs = pipeline.run_batch(a)
        return api.from_numpy(outs) if isinstance(outs, np.ndarray) else outs
    out = pipeline.run(a)
    return out if isinstance(out, dict) else api.from_numpy(out)


def _shared(pipeline: Any, api: _Api, tensor: Any, dtype: str) -> Any:
    single = tensor.ndim != 4
    t = tensor[None] if single else tensor  # (N, H, W[, C])
    n, h, w = int(t.shape[0]), int(t.shape[1]), int(t.shape[2])
    channels = 1 if t.ndim == 3 else int(t.shape[3])
    # into one of texelflow's layouts, on the tensor's device: uint8 RGBA or grey as they are;
    # RGB gains an alpha; 16-bit and float images enter as RGBA16 (floats rounded to 65535
    # steps, as the numpy route does)
    x = t
    wide16 = dtype != "uint8"
    if dtype in ("float16", "float32"):
        x = api.to_unorm16(x)
    elif wide16 and api.kind == "torch":
        x = x.view(api.lib.int16)  # torch's uint16 has few operations; the bits are the same
    if channels == 1 and x.ndim == 4:
        x = x[..., 0]
    if wide16 and channels == 1:
        # grey replicated, as the numpy route does
        x = x[..., None].expand(n, h, w, 3) if api.kind == "torch" else api.lib.broadcast_to(x[..., None], (n, h, w, 3))
        channels = 3
    if channels == 3:
        x = api.widen(x, 255 if not wide16 else (-1 if api.kind == "torch" else 65535))
    fmt = "rgba16" if wide16 else ("gray8" if channels == 1 else "rgba8")
    try:
        src, src_step, src_pitch, stream = _layout(x)
    except _NotRows:
        x = x.contiguous() if api.kind == "torch" else api.lib.ascontiguousarray(x)
        src, src_step, src_pitch, stream = _layout(x)
    shape = pipeline._native.output_format(w, h, fmt)
    if shape is None or shape[2] not in ("rgba8", "gray8", "rgba16"):
        return _host(pipeline, api, tensor)
    ow, oh, ofmt = shape
    odtype = "uint8" if ofmt != "rgba16" else ("int16" if api.kind == "torch" else "uint16")
    out = api.empty((n, oh, ow) if ofmt == "gray8" else (n, oh, ow, 4), odtype)
    dst, dst_step, dst_pitch, _ = _layout(out)
    pipeline._native.run_cuda(stream, src, src_pitch, w, h, fmt, dst, dst_pitch, n, src_step, dst_step)
    # the input's layout where the pipeline kept it (as the numpy route's _like_input)
    if ofmt == "rgba16":
        if dtype in ("float16", "float32"):
            out = api.from_unorm16(out, dtype)
        elif api.kind == "torch":
            out = out.view(api.lib.uint16)
    elif dtype in ("float16", "float32"):
        out = api.from_unorm8(out, dtype)
    if out.ndim == 4 and t.ndim == 4 and t.shape[3] == 3:
        out = out[..., :3]
    elif out.ndim == 3 and t.ndim == 4 and t.shape[3] == 1:
        out = out[..., None]
    return out[0] if single else out
