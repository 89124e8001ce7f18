"""The graph API, analyze, list_filters and devices, against the chain API and the CLI."""

import json
import subprocess

import numpy as np
import pytest
from PIL import Image

import texelflow


def test_fan_out_graph_matches_pipelines(sample):
    g = texelflow.Graph()
    src = g.source("photo", like=sample)
    blurred = g.add("gaussian_blur(sigma=3)", src)
    edges = g.add("sobel_edge_detection", blurred)
    hist = g.add("histogram", blurred)
    g.output("blurred", blurred)
    g.output("edges", edges)
    g.output("hist", hist)
    assert "image 64x48 rgba8" in repr(blurred) and hist.desc == "histogram data"
    r = g.run({"photo": sample})
    assert set(r) == {"blurred", "edges", "hist"}
    np.testing.assert_array_equal(r["blurred"], texelflow.apply(sample, "gaussian_blur(sigma=3)"))
    np.testing.assert_array_equal(r["edges"], texelflow.apply(sample, "gaussian_blur(sigma=3) | sobel_edge_detection"))
    assert r["hist"] == texelflow.apply(sample, "gaussian_blur(sigma=3) | histogram")
    assert sum(r["hist"]["histogram"]["r"]) == sample.shape[0] * sample.shape[1]


def test_two_source_graph_matches_spec_with_arrays(sample):
    top = np.ascontiguousarray(sample[::-1])
    g = texelflow.Graph()
    a, b = g.source("a", like=sample), g.source("b", like=top)
    g.output("mixed", g.add("add_weighted(alpha=0.3)", a, b))
    out = g.run({"a": sample, "b": top})["mixed"]
    np.testing.assert_array_equal(out, texelflow.apply(sample, "add_weighted(with=top, alpha=0.3)", images={"top": top}))


def test_grey_and_sixteen_bit_sources(sample, rng):
    grey = np.ascontiguousarray(sample[..., 1])
    g = texelflow.Graph()
    s = g.source("grey", like=grey)
    assert s.desc == "image 64x48 gray8"
    g.output("eroded", g.add("erosion(radius=1)", s))
    out = g.run({"grey": grey})["eroded"]
    assert out.shape == grey.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out, texelflow.apply(grey, "erosion(radius=1)"))

    deep = rng.integers(0, 65535, size=(20, 24, 4), dtype=np.uint16)
    g = texelflow.Graph()
    g.output("blur", g.add("gaussian_blur(sigma=1)", g.source("deep", like=deep)))
    out = g.run({"deep": deep})["blur"]
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, texelflow.apply(deep, "gaussian_blur(sigma=1)"))


def test_analyze_matches_cli(sample, cli, tmp_path):
    path = tmp_path / "in.png"
    Image.fromarray(sample).save(path)
    run = subprocess.run([cli, "analyze", str(path), "--json"], capture_output=True, text=True, timeout=60, check=True)
    expected = json.loads(run.stdout)
    expected.pop("file")
    got = texelflow.analyze(sample)
    for channel, bins in got["histogram"].items():
        assert bins.dtype == np.uint64
        got["histogram"][channel] = bins.tolist()
    assert got == expected
    # RGB and grey arrays are analysed as the RGBA8 image they widen to
    rgb = texelflow.analyze(np.ascontiguousarray(sample[..., :3]))
    assert rgb["channels"]["r"] == expected["channels"]["r"] and rgb["channels"]["a"]["min"] == 255


def test_list_filters_describes_the_registry():
    filters = {f["name"]: f for f in texelflow.list_filters()}
    blur = filters["gaussian_blur"]
    sigma = next(p for p in blur["params"] if p["name"] == "sigma")
    assert sigma["kind"] == "float" and sigma["range"] == [0.1, 32.0]
    assert "rgba8" in blur["formats"] and "gray8" in blur["formats"]
    assert filters["histogram"]["outputs"] == [{"name": "histogram", "kind": "histogram"}] or filters["histogram"]["outputs"][0]["kind"] == "histogram"
    assert filters["alpha_blend"]["inputs"][1]["name"] == "with"


def test_devices_and_device_name():
    listed = texelflow.devices()
    assert isinstance(listed, list)
    for i, d in enumerate(listed):
        assert set(d) == {"index", "name", "backend", "type", "driver", "vendor", "pci_bus_id", "uuid", "default"}
        assert d["index"] == i
    assert texelflow.device_name("cpu") == "CPU reference"
    if listed:
        default = [d for d in listed if d["default"]]
        assert len(default) == 1, listed
        assert texelflow.device_name("gpu").startswith(default[0]["name"])
    else:
        with pytest.raises(RuntimeError, match="no GPU adapter found"):
            texelflow.device_name("gpu")


def test_graph_and_analyze_on_the_cpu(sample):
    g = texelflow.Graph()
    src = g.source("photo", like=sample)
    g.output("blurred", g.add("gaussian_blur(sigma=2)", src))
    g.output("stats", g.add("reduce", src))
    gpu, cpu = g.run({"photo": sample}), g.run({"photo": sample}, cpu=True)
    assert np.abs(gpu["blurred"].astype(int) - cpu["blurred"].astype(int)).max() <= 1
    assert gpu["stats"] == cpu["stats"]  # integer statistics: exactly equal
    a, b = texelflow.analyze(sample), texelflow.analyze(sample, cpu=True)
    assert b["backend"] == "CPU reference"
    assert a["channels"] == b["channels"] and a["mean_saturation"] == pytest.approx(b["mean_saturation"], abs=1e-6)
