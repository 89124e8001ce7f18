"""Python runs are planned as the CLI's are (issue 29 item 8): an image that does not fit the
GPU whole runs in tiles or bands where the pipeline allows it, instead of failing."""

import numpy as np
import pytest

import texelflow as tf


def test_an_image_runs_in_tiles_like_the_cli(monkeypatch, rng):
    """TEXELFLOW_TILE forces tiles at a small size (as the CLI's does): the GPU run goes through
    the run planner, says so in a note, and equals the untiled GPU run. Before, Python ran every
    image whole and failed on one past the GPU's binding (lavapipe: 6000x6000 RGBA8)."""
    img = rng.integers(0, 256, (150, 200, 4), dtype=np.uint8)
    pipe = tf.Pipeline("brightness(0.1)", device="gpu")
    want = pipe.run(img)
    monkeypatch.setenv("TEXELFLOW_TILE", "64")
    with pytest.warns(tf.TexelflowWarning, match="tiles"):
        got = pipe.run(img)
    assert got.shape == img.shape and got.dtype == img.dtype
    np.testing.assert_array_equal(got, want)
