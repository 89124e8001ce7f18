"""Bad input raises Python exceptions carrying the CLI's one-line messages: ValueError for
specs, parameters and arrays, OSError for files, RuntimeError for the device."""

import subprocess

import numpy as np
import pytest

import texelflow


def cli_error(cli, files_dir, spec) -> str:
    """The CLI's message for `spec` on a small image (stderr without `error: `)."""
    from PIL import Image

    src = files_dir / "in.png"
    Image.fromarray(np.zeros((8, 8, 4), np.uint8)).save(src)
    run = subprocess.run([cli, "apply", str(src), str(files_dir / "out.png"), "-p", spec], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    line = run.stderr.strip().splitlines()[-1]
    assert line.startswith("error: ")
    return line[len("error: "):]


@pytest.mark.parametrize(
    "spec",
    [
        "gausian_blur(sigma=2)",  # unknown filter, with a suggestion
        "gaussian_blur(sigmaa=2)",  # unknown parameter
        "gaussian_blur(sigma=-1)",  # out of range
        "gaussian_blur(sigma=2",  # syntax
        "resize(method=cubicc)",  # not one of the choices
        "",  # empty
    ],
)
def test_spec_errors_match_cli(spec, cli, tmp_path):
    img = np.zeros((8, 8, 4), np.uint8)
    with pytest.raises(ValueError) as e:
        texelflow.apply(img, spec)
    assert str(e.value) == cli_error(cli, tmp_path, spec)
    assert "\n" not in str(e.value)


def test_missing_file_is_oserror(cli, tmp_path):
    spec = f"alpha_blend(with={tmp_path / 'nope.png'})"
    with pytest.raises(OSError) as e:
        texelflow.Pipeline(spec)
    assert str(e.value) == cli_error(cli, tmp_path, spec)


@pytest.mark.parametrize(
    "array, message",
    [
        (np.zeros((8, 8, 4), np.float64), "uint8, uint16 or float32, got float64"),
        (np.zeros((8, 8, 4), np.int32), "uint8, uint16 or float32, got int32"),
        (np.zeros((8, 8, 2), np.uint8), "got shape (8, 8, 2)"),
        (np.zeros((2, 8, 8, 4), np.uint8), "got shape (2, 8, 8, 4)"),
        (np.zeros((8,), np.uint8), "got shape (8,)"),
        (np.zeros((0, 8, 4), np.uint8), "empty image"),
        (np.zeros((8, 8, 4), ">u2"), "byte order"),
    ],
)
def test_bad_arrays(array, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        texelflow.apply(array, "brightness(0.1)")


def test_bad_device_arguments():
    img = np.zeros((8, 8, 4), np.uint8)
    with pytest.raises(ValueError, match='device `tpu`: use "auto", "gpu" or "cpu"'):
        texelflow.apply(img, "brightness(0.1)", device="tpu")
    with pytest.raises(RuntimeError, match="no GPU adapter found matching `no-such-adapter`"):
        texelflow.apply(img, "brightness(0.1)", device="gpu", adapter="no-such-adapter")
    with pytest.raises(RuntimeError, match="unknown backend `glide`"):
        texelflow.apply(img, "brightness(0.1)", device="gpu", backend="glide")


def test_auto_falls_back_to_cpu_with_a_warning(sample):
    with pytest.warns(texelflow.TexelflowWarning, match="running on the CPU reference implementation instead"):
        pipe = texelflow.Pipeline("gaussian_blur(sigma=2)", adapter="no-such-adapter")
    assert pipe.device == "CPU reference"
    np.testing.assert_array_equal(pipe.run(sample), texelflow.apply(sample, "gaussian_blur(sigma=2)", cpu=True))


def test_graph_errors():
    g = texelflow.Graph()
    src = g.source("photo", width=8, height=8)
    with pytest.raises(ValueError, match="two sources are named `photo`"):
        g.source("photo", width=8, height=8)
    with pytest.raises(ValueError, match="format `rgb24`"):
        g.source("other", width=8, height=8, format="rgb24")
    with pytest.raises(ValueError, match="takes 2 input"):
        g.add("alpha_blend", src)
    g.output("out", g.add("gaussian_blur(sigma=1)", src))
    with pytest.raises(ValueError, match="declared as image 8x8 rgba8 but got image 9x8 rgba8"):
        g.run({"photo": np.zeros((8, 9, 4), np.uint8)})
    with pytest.raises(ValueError, match="source `photo` was not given an image"):
        g.run({})
    with pytest.raises(ValueError, match="in_flight must be at least 1"):
        texelflow.Pipeline("brightness(0.1)").run_batch([np.zeros((8, 8, 4), np.uint8)], in_flight=0)
