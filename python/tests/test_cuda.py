"""Results the caller keeps, and CUDA tensors where there is no CUDA (CI): results stay
correct after many later runs (each is a buffer of its own until the array goes), CUDA
objects are recognised as such, and a machine without CUDA says why sharing is impossible
instead of failing. The CUDA route itself is checked on the GPU machine by
scripts/bench_cuda.py (`variants`: every layout against the numpy route)."""

import numpy as np
import pytest

import texelflow
from texelflow import _cuda


def test_a_result_stays_correct_after_100_later_runs(rng):
    pipe = texelflow.Pipeline("gaussian_blur(sigma=2) | brightness(0.05)")
    first_in = rng.integers(0, 256, size=(37, 53, 4), dtype=np.uint8)
    first = pipe.run(first_in)
    view = first[5:20, 3:40]  # a view keeps the memory alive as well
    want = first.copy()
    for _ in range(100):
        other = rng.integers(0, 256, size=(37, 53, 4), dtype=np.uint8)
        out = pipe.run(other)
        assert not np.shares_memory(out, first)
    assert np.array_equal(first, want)
    assert np.array_equal(view, want[5:20, 3:40])
    # and it is the right result, not only an unchanged one
    assert np.array_equal(first, pipe.run(first_in))


def test_a_kept_result_survives_its_pipeline(rng):
    a = rng.integers(0, 256, size=(29, 31, 4), dtype=np.uint8)
    out = texelflow.Pipeline("color_invert").run(a)
    import gc

    gc.collect()
    for _ in range(10):
        texelflow.Pipeline("color_invert").run(rng.integers(0, 256, size=(29, 31, 4), dtype=np.uint8))
    assert np.array_equal(out[..., :3], 255 - a[..., :3])


class _FakeCuda:
    """An object as a CUDA array library makes it (only the interfaces texelflow looks at)."""

    __module__ = "jaxlib.xla_extension"

    def __init__(self, shape):
        self.shape = shape
        self.ndim = len(shape)
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "|u1", "data": (0, False), "version": 3}


class _FakeDlpack:
    def __init__(self, device_type):
        self.device_type = device_type

    def __dlpack_device__(self):
        return (self.device_type, 0)


def test_cuda_objects_are_told_from_host_ones():
    assert _cuda.is_cuda(_FakeCuda((4, 4, 4)))
    assert _cuda.is_cuda(_FakeDlpack(2))  # kDLCUDA
    assert not _cuda.is_cuda(_FakeDlpack(1))  # kDLCPU
    assert not _cuda.is_cuda(np.zeros((4, 4, 4), np.uint8))


def test_a_cuda_object_of_an_unknown_library_gets_one_clear_line():
    with pytest.raises(ValueError, match="CUDA tensors of torch and CuPy"):
        texelflow.Pipeline("color_invert").run(_FakeCuda((4, 4, 4)))


def test_without_cuda_sharing_says_why():
    pipe = texelflow.Pipeline("color_invert")
    why = pipe._native.cuda_share(0)
    # CI has no CUDA driver (or a GPU that is not CUDA's): never None there, always a reason
    assert isinstance(why, str) and why
    with pytest.raises(ValueError, match="channels_first is for CUDA tensors"):
        pipe.run(np.zeros((4, 4, 4), np.uint8), channels_first=True)
