"""CMYK JPEGs (issue 29, item 2): plain CMYK, Adobe-inverted CMYK and YCCK files decode within
2 levels of Pillow's ``Image.open(f).convert('RGB')`` as an input file, as a second image and in
``texelflow analyze``; they came out as stripes with the last quarter black. The fixtures are the
library's (crates/texelflow/tests/data/jpeg, made by its make_fixtures.py)."""

import json
import pathlib
import subprocess

import numpy as np
import pytest
from PIL import Image

import texelflow

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "crates" / "texelflow" / "tests" / "data" / "jpeg"
NAMES = ["cmyk_plain", "cmyk_adobe", "ycck"]


def pillow(name: str) -> np.ndarray:
    with Image.open(FIXTURES / f"{name}.jpg") as im:
        assert im.mode == "CMYK"
        return np.asarray(im.convert("RGB")).astype(int)


@pytest.mark.parametrize("name", NAMES)
def test_input_file_matches_pillow(tmp_path, name):
    out = tmp_path / "out.png"
    texelflow.apply_file(FIXTURES / f"{name}.jpg", out, "brightness(0)", cpu=True)
    got = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert np.abs(got - pillow(name)).max() <= 2


@pytest.mark.parametrize("name", NAMES)
def test_second_image_matches_pillow(name):
    ref = pillow(name)
    base = np.zeros(ref.shape[:2] + (4,), np.uint8)
    top = texelflow.apply(base, f"alpha_blend(with={FIXTURES / f'{name}.jpg'}, mix=1)", cpu=True)
    assert np.abs(top[..., :3].astype(int) - ref).max() <= 2


@pytest.mark.parametrize("name", NAMES)
def test_cli_analyze_matches_pillow(cli, name):
    r = subprocess.run([cli, "--cpu", "analyze", "--json", str(FIXTURES / f"{name}.jpg")], check=True, capture_output=True, text=True, timeout=120)
    channels = json.loads(r.stdout)["channels"]
    ref = pillow(name)
    for i, c in enumerate("rgb"):
        assert abs(channels[c]["mean"] - ref[..., i].mean()) <= 2, (c, channels[c], ref[..., i].mean())
