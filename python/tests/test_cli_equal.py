"""Every filter of the registry, called from Python, gives exactly what the CLI gives on the
same image (the same graph on the same device: any difference is a binding bug, in the
array conversion, the layout of results or the spec handling)."""

import json
import pathlib
import subprocess

import numpy as np
import pytest
from PIL import Image

import texelflow

# Filters that read data take it from the stage before them, as in the CLI (docs/cli.md: "A stage
# that takes an image and data ... placed after a stage that made that data").
PRODUCERS = {
    "histogram": "histogram",
    "stats": "reduce",
    # to_rgba: the drawing filters draw on the last image before the data, in RGBA8
    "points": "fast_corner_detection | to_rgba | corner_points",
    "lines": "canny_edge_detection | to_rgba | hough_line_detection(max=20)",
    "range": "histogram | range_from_histogram",
    "color": "dominant_color",
    "lut": "histogram | equalization_lut",
}

# A 2x2x2 .cube LUT (a warm grade), for lut_cube(file=...)
CUBE = """TITLE "warm"
LUT_3D_SIZE 2
0.05 0.0 0.0
1.0 0.1 0.0
0.0 0.9 0.0
1.0 1.0 0.1
0.0 0.0 0.8
0.95 0.0 0.9
0.0 0.9 0.85
1.0 0.97 0.9
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory, sample, repo):
    """The input, a second image and a mask as PNG files, and a .cube LUT."""
    d = tmp_path_factory.mktemp("cli")
    paths = {"input": d / "input.png", "second": d / "second.png", "mask": d / "mask.png", "cube": d / "warm.cube"}
    Image.fromarray(sample).save(paths["input"])
    Image.fromarray(np.ascontiguousarray(sample[::-1, ::-1])).save(paths["second"])
    Image.fromarray(np.ascontiguousarray(sample[..., 1])).save(paths["mask"])
    paths["cube"].write_text(CUBE)
    paths["tiles"] = repo / "assets" / "mosaic_tiles.png"
    paths["lut"] = repo / "crates" / "texelflow" / "luts" / "amatorka.png"
    return paths


def spec_for(f, files) -> str:
    """The filter with default parameters, its required image and file parameters filled in,
    after the stage that makes the data it reads."""
    args = []
    for p in f["params"]:
        if p["kind"] == "image":
            path = {"mask": files["mask"], "tiles": files["tiles"], "lut": files["lut"]}.get(p["name"], files["second"])
            args.append(f"{p['name']}={path}")
        elif p["kind"] == "path" and p["options"]["required"]:
            assert p["options"]["extension"] == "cube", f"no test file for a required .{p['options']['extension']} parameter"
            args.append(f"{p['name']}={files['cube']}")
    call = f["name"] + (f"({', '.join(args)})" if args else "")
    data_inputs = [i["kind"] for i in f["inputs"] if i["kind"] != "image"]
    if data_inputs:
        return f"{PRODUCERS[data_inputs[0]]} | {call}"
    return call


def as_png_pixels(out: np.ndarray, mode: str) -> np.ndarray:
    """A Python result as the CLI's PNG holds it (mode of the file)."""
    if mode == "RGB" and out.ndim == 3 and out.shape[2] == 4:
        assert (out[..., 3] == 255).all(), "the CLI wrote RGB, so the result must be opaque"
        return out[..., :3]
    return out


@pytest.mark.parametrize("name", [f["name"] for f in texelflow.list_filters()])
def test_filter_equals_cli(name, files, sample, cli, tmp_path):
    f = next(f for f in texelflow.list_filters() if f["name"] == name)
    spec = spec_for(f, files)
    out = texelflow.apply(sample, spec)
    if isinstance(out, dict):
        target = tmp_path / "out.json"
        cmd = [cli, "--gpu", "apply", str(files["input"]), "--data", str(target), "-p", spec]
    else:
        target = tmp_path / "out.png"
        cmd = [cli, "--gpu", "apply", str(files["input"]), str(target), "-p", spec]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"CLI failed on `{spec}`: {run.stderr.strip()}"
    if isinstance(out, dict):
        assert out == json.loads(target.read_text()), spec
        return
    png = Image.open(target)
    expected = np.asarray(png)
    got = as_png_pixels(out, png.mode)
    assert got.shape == expected.shape and got.dtype == expected.dtype, f"`{spec}`: {got.shape} {got.dtype} vs CLI {expected.shape} {expected.dtype}"
    diff = np.argwhere(got != expected)
    assert diff.size == 0, f"`{spec}`: {len(diff)} samples differ from the CLI's, first at {diff[0].tolist()}"


def test_every_filter_is_covered():
    """The parametrisation above comes from the registry; it must not be empty."""
    assert len(texelflow.list_filters()) > 100
