"""Pinned inputs (`Pipeline.input_array`): arrays whose memory is the device's upload staging
buffer, uploaded by a GPU copy alone. Results equal the ordinary numpy path, the array is
reused over many runs and rewritten between them, and misuse (wrong layouts, views, the
pipeline gone, other devices, threads) gives a clear exception or a correct result, never a
crash."""

import gc
import threading

import numpy as np
import pytest

import texelflow

SPEC = "gaussian_blur(sigma=1.5) | brightness(0.1)"
GRAY_SPEC = "gaussian_blur(sigma=1.5)"


@pytest.fixture(scope="module")
def pipe():
    return texelflow.Pipeline(SPEC)


def on_gpu(p):
    return p.device != "CPU reference"


def fill(rng, dtype, shape):
    return rng.integers(0, np.iinfo(dtype).max, size=shape, endpoint=True, dtype=dtype)


@pytest.mark.parametrize(
    "shape,dtype,spec",
    [((41, 67, 4), np.uint8, SPEC), ((41, 67), np.uint8, GRAY_SPEC), ((41, 67, 1), np.uint8, GRAY_SPEC), ((41, 67, 4), np.uint16, SPEC)],
    ids=["rgba8", "gray8-odd-width", "gray8-HW1", "rgba16"],
)
def test_equal_to_numpy_path(rng, shape, dtype, spec):
    p = texelflow.Pipeline(spec)
    a = p.input_array(shape, dtype)
    assert a.shape == shape and a.dtype == dtype and a.flags.writeable
    assert not a.any(), "a new pinned array is zeroed"
    assert texelflow.is_pinned(a) == on_gpu(p)
    img = fill(rng, dtype, shape)
    np.copyto(a, img)
    out = p.run(a)
    np.testing.assert_array_equal(out, p.run(img))
    assert out.shape == p.run(img).shape


def test_reuse_and_rewrite(pipe, rng):
    a = pipe.input_array((64, 96, 4))
    kept = []
    for i in range(6):
        img = fill(rng, np.uint8, a.shape)
        a[:] = img
        want = pipe.run(img)
        for _ in range(2):  # the same contents twice: the buffer is mapped again after each run
            out = pipe.run(a)
            np.testing.assert_array_equal(out, want)
        kept.append((out, want))
        if on_gpu(pipe):
            assert pipe.last_host_times["upload_ms"] < 50
    # earlier results are read-back buffers of their own: later runs left them alone
    for out, want in kept:
        np.testing.assert_array_equal(out, want)


def test_partial_writes_between_runs(pipe, rng):
    a = pipe.input_array((32, 48, 4))
    ref = np.zeros(a.shape, np.uint8)
    for _ in range(4):
        y = int(rng.integers(0, 30))
        patch = fill(rng, np.uint8, (2, 48, 4))
        a[y : y + 2] = patch
        ref[y : y + 2] = patch
        np.testing.assert_array_equal(pipe.run(a), pipe.run(ref))


def test_wrong_layouts_raise(pipe):
    for shape, dtype in [((10, 10, 3), np.uint8), ((10, 10, 4), np.float32), ((10, 10, 1), np.uint16), ((10, 10, 2), np.uint8), ((10,), np.uint8), ((0, 10, 4), np.uint8), ((10, 10, 4), np.int32)]:
        with pytest.raises(ValueError, match="input_array"):
            pipe.input_array(shape, dtype)
    with pytest.raises(ValueError, match="sides must be"):
        pipe.input_array((40000, 10, 4))


def test_views_are_ordinary_arrays(pipe, rng):
    a = pipe.input_array((40, 50, 4))
    a[:] = fill(rng, np.uint8, a.shape)
    if on_gpu(pipe):
        assert texelflow.is_pinned(a) and texelflow.is_pinned(a[...])
    for view in (a[1:], a[:, ::2], a[..., :3], a[::-1]):
        assert not texelflow.is_pinned(view)
        np.testing.assert_array_equal(pipe.run(view), pipe.run(np.array(view)))
    assert not texelflow.is_pinned(np.zeros((4, 4, 4), np.uint8))


def test_outlives_its_pipeline(rng):
    p = texelflow.Pipeline(SPEC)
    a = p.input_array((24, 40, 4))
    del p
    gc.collect()
    # the array keeps its buffer and the device: writing and running stay valid
    img = fill(rng, np.uint8, a.shape)
    a[:] = img
    q = texelflow.Pipeline(SPEC)
    np.testing.assert_array_equal(q.run(a), q.run(img))
    np.testing.assert_array_equal(texelflow.apply(a, SPEC), q.run(img))
    del q
    gc.collect()
    assert int(a.sum()) == int(img.sum())


def test_other_device_and_batch(pipe, rng):
    a = pipe.input_array((20, 30, 4))
    img = fill(rng, np.uint8, a.shape)
    a[:] = img
    # another device (the CPU reference) reads it as an ordinary array
    cpu = texelflow.Pipeline(SPEC, cpu=True)
    np.testing.assert_array_equal(cpu.run(a), cpu.run(img))
    z = cpu.input_array((5, 6, 4))
    assert isinstance(z, np.ndarray) and not texelflow.is_pinned(z) and not z.any()
    # one pinned array several times in a batch: the runs take the buffer in turn
    outs = pipe.run_batch([a, a, a, a], in_flight=4)
    want = pipe.run(img)
    for out in outs:
        np.testing.assert_array_equal(out, want)


def test_threads_share_one_pinned_array(pipe, rng):
    a = pipe.input_array((30, 30, 4))
    img = fill(rng, np.uint8, a.shape)
    a[:] = img
    want = pipe.run(img)
    errors = []

    def work():
        try:
            for _ in range(5):
                np.testing.assert_array_equal(pipe.run(a), want)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
