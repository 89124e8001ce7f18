"""Pipeline.apply_batch: a folder of files through one pipeline in this process (the library's
batch, as `texelflow apply IN... --out-dir DIR`): each output as `apply_file` writes it and as the
CLI's batch does; failures reported, not raised; existing outputs refused by default; warm calls."""

import subprocess

import numpy as np
import pytest
from PIL import Image

import texelflow

SPEC = "gaussian_blur(sigma=1.5) | contrast(1.2)"


def photo(rng, h, w) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 255 // w), (y * 255 // h), ((x + y) * 3) % 200], axis=-1)
    return np.clip(img + rng.integers(0, 16, img.shape), 0, 255).astype(np.uint8)


@pytest.fixture()
def folder(tmp_path, rng):
    """in/a.png, in/b.jpg, in/sub/c.png (grey), in/notes.txt."""
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    Image.fromarray(photo(rng, 48, 64)).save(d / "a.png")
    Image.fromarray(photo(rng, 72, 130)).save(d / "b.jpg", quality=92)
    Image.fromarray(photo(rng, 31, 40)[..., 0]).save(d / "sub" / "c.png")
    (d / "notes.txt").write_text("not an image")
    return d


NAMES = ["a.png", "b.jpg", "sub/c.png"]


def test_outputs_equal_apply_file_and_the_cli(tmp_path, folder, cli):
    pipe = texelflow.Pipeline(SPEC)
    out = tmp_path / "batch"
    r = pipe.apply_batch(folder, out, recursive=True, jobs=2, timings=True)
    assert (r["done"], r["skipped"], r["failed"]) == (3, 0, []), r
    assert r["wall"] > 0 and len(r["times"]) == 3, r
    single, by_cli = tmp_path / "single", tmp_path / "cli"
    subprocess.run(
        [cli, "--gpu", "apply", str(folder), "--out-dir", str(by_cli), "--recursive", "-p", SPEC],
        check=True, capture_output=True, timeout=120,
    )
    for name in NAMES:
        (single / name).parent.mkdir(parents=True, exist_ok=True)
        texelflow.apply_file(folder / name, single / name, SPEC, device="gpu")
        got = (out / name).read_bytes()
        assert got == (single / name).read_bytes(), name
        assert got == (by_cli / name).read_bytes(), name


def test_a_second_call_is_warm_and_the_same(tmp_path, folder):
    pipe = texelflow.Pipeline(SPEC)
    first = pipe.apply_batch(str(folder), tmp_path / "one", recursive=True, name="{stem}.png")
    second = pipe.apply_batch([str(folder)], tmp_path / "two", recursive=True, name="{stem}.png")
    assert first["done"] == second["done"] == 3
    for name in ["a.png", "b.png", "sub/c.png"]:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_failures_are_reported_not_raised(tmp_path, folder):
    (folder / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    missing = tmp_path / "missing.jpg"
    r = texelflow.Pipeline(SPEC).apply_batch([folder, missing], tmp_path / "out")
    assert r["done"] == 2, r
    failed = sorted(p.rsplit("/", 1)[-1] for p, _ in r["failed"])
    assert failed == ["corrupt.png", "missing.jpg"], r
    assert all(isinstance(why, str) and why and "\n" not in why for _, why in r["failed"])


def test_existing_outputs_are_refused_unless_asked(tmp_path, folder):
    pipe = texelflow.Pipeline(SPEC)
    out = tmp_path / "out"
    assert pipe.apply_batch(folder, out)["done"] == 2
    (out / "a.png").write_bytes(b"old")
    r = pipe.apply_batch(folder, out)
    assert r["done"] == 0 and len(r["failed"]) == 2, r
    assert all("exists" in why for _, why in r["failed"]), r
    assert (out / "a.png").read_bytes() == b"old"
    r = pipe.apply_batch(folder, out, skip_existing=True)
    assert (r["done"], r["skipped"]) == (0, 2), r
    r = pipe.apply_batch(folder, out, overwrite=True)
    assert r["done"] == 2 and (out / "a.png").read_bytes() != b"old", r
    with pytest.raises(ValueError, match="exclude"):
        pipe.apply_batch(folder, out, overwrite=True, skip_existing=True)


def test_a_batch_that_cannot_start_raises(tmp_path, folder):
    pipe = texelflow.Pipeline(SPEC)
    with pytest.raises(ValueError, match="one of the inputs"):
        pipe.apply_batch(folder, folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no image files"):
        pipe.apply_batch(empty, tmp_path / "o")
    with pytest.raises(ValueError, match="unknown output extension"):
        pipe.apply_batch(folder, tmp_path / "o", name="{stem}.nope")


def test_on_the_cpu(tmp_path, folder):
    gpu = texelflow.Pipeline(SPEC, device="gpu").apply_batch(folder, tmp_path / "g", name="{stem}.png")
    cpu = texelflow.Pipeline(SPEC, cpu=True).apply_batch(folder, tmp_path / "c", name="{stem}.png")
    assert gpu["done"] == cpu["done"] == 2
    for name in ["a.png", "b.png"]:
        a = np.asarray(Image.open(tmp_path / "g" / name)).astype(int)
        b = np.asarray(Image.open(tmp_path / "c" / name)).astype(int)
        assert np.abs(a - b).max() <= 2, name
