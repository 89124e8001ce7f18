"""Shared fixtures: small images cut from the bundled sample, and the CLI binary that the
Python results are compared with (built by `cargo test` / `cargo build -p texelflow-cli`)."""

import os
import pathlib

import numpy as np
import pytest
from PIL import Image

REPO = pathlib.Path(__file__).resolve().parents[2]
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
# The GPU tests ask for Vulkan explicitly: by default a software rasterizer (lavapipe, where the
# machine has no GPU) is not opened and the CPU reference runs instead (test_device.py checks
# that default in processes of its own).
os.environ.setdefault("WGPU_BACKEND", "vulkan")


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> str:
    """The `texelflow` binary: $TEXELFLOW_CLI, else target/debug/texelflow."""
    path = os.environ.get("TEXELFLOW_CLI", str(REPO / "target" / "debug" / "texelflow"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"the CLI binary {path} is missing: run `cargo build -p texelflow-cli` first (or set TEXELFLOW_CLI)")
    return path


@pytest.fixture(scope="session")
def sample() -> np.ndarray:
    """A 64x48 RGBA8 crop of assets/sample.png (edges, flat areas and colour)."""
    img = Image.open(REPO / "assets" / "sample.png").convert("RGBA")
    return np.ascontiguousarray(np.asarray(img)[60:108, 100:164])


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(19)
