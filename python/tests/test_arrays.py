"""Arrays in and out: every dtype and channel layout makes the round trip exactly (to 16 bits
for float32), strided views give what their contiguous copies give, results keep the input's
layout, and results stay valid while later runs reuse the device's buffers."""

import numpy as np
import pytest

import texelflow

# an exact permutation on rgba8, rgba16 and gray8 applied twice: the identity, run on the GPU
IDENTITY = "flip(mode=both) | flip(mode=both)"


def make(rng, dtype, shape):
    if dtype == np.float32:
        return rng.random(shape, dtype=np.float32)
    return rng.integers(0, np.iinfo(dtype).max, size=shape, endpoint=True, dtype=dtype)


LAYOUTS = [(37, 53), (37, 53, 1), (37, 53, 3), (37, 53, 4)]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32], ids=["uint8", "uint16", "float32"])
@pytest.mark.parametrize("shape", LAYOUTS, ids=["HW", "HW1", "HW3", "HW4"])
def test_round_trip(rng, dtype, shape):
    arr = make(rng, dtype, shape)
    out = texelflow.apply(arr, IDENTITY)
    assert out.dtype == arr.dtype
    channels = 1 if arr.ndim == 2 else arr.shape[2]
    if channels == 1 and dtype != np.uint8:
        # no 16-bit grey format: grey is widened to RGBA16 and comes back as RGBA
        assert out.shape == arr.shape[:2] + (4,)
        grey = arr.reshape(arr.shape[:2])
        for c in range(3):
            np.testing.assert_allclose(out[..., c], grey, atol=0.5 / 65535 if dtype == np.float32 else 0)
        assert (out[..., 3] == (1.0 if dtype == np.float32 else 65535)).all()
        return
    assert out.shape == arr.shape
    if dtype == np.float32:
        # carried as 16-bit samples: within half a step of 1/65535
        np.testing.assert_allclose(out, arr, rtol=0, atol=0.5 / 65535 + 1e-7)
    else:
        np.testing.assert_array_equal(out, arr)


def strided_views(base):
    """Non-contiguous views of `base` (H, W, C), each with its contiguous copy."""
    views = {
        "rows reversed": base[::-1],
        "columns reversed": base[:, ::-1],
        "every other column": base[:, ::2],
        "fortran order": np.asfortranarray(base),
        "transposed": base.transpose(1, 0, 2),
        "window": base[3:30, 5:40],
        "channels reversed": base[..., ::-1],
    }
    # (a one-channel array reversed along its channels is still C-contiguous: nothing to test)
    return [(name, v, np.ascontiguousarray(v)) for name, v in views.items() if not v.flags["C_CONTIGUOUS"]]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32], ids=["uint8", "uint16", "float32"])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_strided_views_equal_contiguous_copies(rng, dtype, channels):
    base = make(rng, dtype, (41, 67, channels))
    pipe = texelflow.Pipeline("gaussian_blur(sigma=1.5)")
    views = strided_views(base)
    assert len(views) >= 6
    for name, view, copy in views:
        np.testing.assert_array_equal(pipe.run(view), pipe.run(copy), err_msg=name)


def test_two_dimensional_strided_grey(rng):
    base = make(rng, np.uint8, (40, 60))
    pipe = texelflow.Pipeline("gaussian_blur(sigma=1.5)")
    for view in (base[::-1, ::3], base.T, base[:, 1:]):
        out = pipe.run(view)
        assert out.shape == view.shape
        np.testing.assert_array_equal(out, pipe.run(np.ascontiguousarray(view)))


def test_rgb_keeps_three_channels_and_gpu_matches_cpu(sample):
    rgb = np.ascontiguousarray(sample[..., :3])
    gpu = texelflow.apply(rgb, "gaussian_blur(sigma=2)")
    cpu = texelflow.apply(rgb, "gaussian_blur(sigma=2)", cpu=True)
    assert gpu.shape == rgb.shape and cpu.shape == rgb.shape
    # the registry's GPU-vs-CPU tolerance for 8-bit outputs: one level
    assert np.abs(gpu.astype(int) - cpu.astype(int)).max() <= 1


def test_grey_meets_rgba_only_filter(sample):
    grey = np.ascontiguousarray(sample[..., 0])
    out = texelflow.apply(grey, "hue(90)")
    # widened to RGBA8 by the pipeline (grey replicated, alpha 255), as for a grey PNG in the CLI
    expected = texelflow.apply(np.dstack([grey, grey, grey, np.full_like(grey, 255)]), "hue(90)")
    np.testing.assert_array_equal(out, expected)


def test_results_survive_later_runs(rng):
    """Results are views of read-back memory: a later run must not write into a result that
    is still alive (its buffer returns to the pool only when the array is freed)."""
    pipe = texelflow.Pipeline("color_invert")
    a, b = make(rng, np.uint8, (64, 64, 4)), make(rng, np.uint8, (64, 64, 4))
    out_a = pipe.run(a)
    kept = out_a.copy()
    for _ in range(5):
        pipe.run(b)
    np.testing.assert_array_equal(out_a, kept)
    np.testing.assert_array_equal(out_a[..., :3], 255 - a[..., :3])
    out_a[0, 0, 0] = 7  # results are ordinary writable arrays
    assert out_a[0, 0, 0] == 7
    del pipe
    np.testing.assert_array_equal(out_a[1:], kept[1:])


def test_sixteen_bit_narrowed_with_a_warning(rng):
    arr = make(rng, np.uint16, (20, 30, 4))
    with pytest.warns(texelflow.TexelflowWarning, match="narrowed to 8 bits"):
        out = texelflow.apply(arr, "sobel_edge_detection")
    assert out.dtype == np.uint8


def test_run_batch_equals_single_runs(rng):
    pipe = texelflow.Pipeline("gaussian_blur(sigma=2) | sobel_edge_detection")
    images = [make(rng, np.uint8, (h, w, 4)) for h, w in [(30, 40), (17, 90), (64, 64), (5, 7), (48, 33), (30, 40)]]
    singles = [pipe.run(i) for i in images]
    for in_flight in (1, 3, 8):
        batch = pipe.run_batch(images, in_flight=in_flight)
        assert len(batch) == len(images)
        for got, want in zip(batch, singles):
            np.testing.assert_array_equal(got, want)
    stacked = np.stack([make(rng, np.uint8, (24, 32, 3)) for _ in range(5)])
    out = pipe.run_batch(stacked)
    assert isinstance(out, np.ndarray) and out.shape == stacked.shape
    for i in range(5):
        np.testing.assert_array_equal(out[i], pipe.run(stacked[i]))


def test_images_from_arrays(sample):
    """An image parameter may name an array of `images` instead of a file."""
    second = np.ascontiguousarray(sample[::-1])
    out = texelflow.apply(sample, "alpha_blend(with=top, mix=0.5)", images={"top": second})
    expected = texelflow.apply(sample, "alpha_blend(with=top, mix=0.5)", images={"top": second}, cpu=True)
    assert np.abs(out.astype(int) - expected.astype(int)).max() <= 1
    assert not np.array_equal(out, sample)


@pytest.mark.parametrize("strips", ["1", "3", "7"])
def test_large_images_upload_in_strips(rng, monkeypatch, strips):
    """Sources of 8 MiB and more are written and copied to the GPU in strips (the gather of one
    overlaps the copy of the last); every strip count gives the same image."""
    monkeypatch.setenv("TEXELFLOW_UPLOAD_STRIPS", strips)
    arr = make(rng, np.uint8, (1501, 1600, 4))  # 9.6 MB, an odd number of rows
    out = texelflow.apply(arr, "color_invert")
    np.testing.assert_array_equal(out[..., :3], 255 - arr[..., :3])
    np.testing.assert_array_equal(out[..., 3], arr[..., 3])
    view = arr[::-1, :, :3]  # strided, three channels: gathered and widened strip by strip
    np.testing.assert_array_equal(texelflow.apply(view, "color_invert"), 255 - view)
