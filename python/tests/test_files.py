"""texelflow.apply_file: file to file as `texelflow apply IN OUT` does, streamed in bands of rows
(large images, or stream=True) with the same result as decoded whole, and the CLI's output."""

import subprocess

import numpy as np
import pytest
from PIL import Image

import texelflow

SPEC = "gaussian_blur(sigma=3) | sobel_edge_detection"


def photo(rng, h=150, w=230) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 255 // w), (y * 255 // h), ((x + y) * 3) % 200, np.full_like(x, 255)], axis=-1)
    return np.clip(img + rng.integers(0, 16, img.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("ext", ["png", "tif", "jpg"])
def test_streamed_equals_whole_and_the_cli(tmp_path, rng, cli, ext):
    src = tmp_path / "in.png"
    Image.fromarray(photo(rng)).save(src)
    s, w, c = tmp_path / f"s.{ext}", tmp_path / f"w.{ext}", tmp_path / f"c.{ext}"
    r = texelflow.apply_file(src, s, SPEC, stream=True)
    assert r["streamed"] is True and any("streamed in" in n for n in r["notes"]), r
    r = texelflow.apply_file(str(src), str(w), SPEC, stream=False)
    assert r["streamed"] is False, r
    subprocess.run([cli, "--gpu", "apply", str(src), str(c), "-p", SPEC], check=True, capture_output=True, timeout=120)
    a, b, k = (np.asarray(Image.open(p)) for p in (s, w, c))
    assert a.shape == b.shape == k.shape
    assert np.array_equal(a, b), "streamed differs from whole"
    assert np.array_equal(a, k), "apply_file differs from the CLI"


def test_pipelines_that_cannot_stream_are_decoded_whole(tmp_path, rng):
    src = tmp_path / "in.png"
    Image.fromarray(photo(rng)).save(src)
    # a resize streams through its geometry
    r = texelflow.apply_file(src, tmp_path / "half.png", "resize(scale=0.5)", stream=True)
    assert r["streamed"] is True, r
    assert Image.open(tmp_path / "half.png").size == (115, 75)
    # a composite that resizes inside does not: decoded whole, the same size out
    r = texelflow.apply_file(src, tmp_path / "frosted.png", "ios_blur", stream=True)
    assert r["streamed"] is False, r
    assert Image.open(tmp_path / "frosted.png").size == (230, 150)


def test_errors_and_warnings(tmp_path, rng):
    src = tmp_path / "in.png"
    Image.fromarray(photo(rng)).save(src)
    with pytest.raises(OSError, match="not found"):
        texelflow.apply_file(tmp_path / "missing.png", tmp_path / "o.png", SPEC)
    with pytest.raises(ValueError, match="data"):
        texelflow.apply_file(src, tmp_path / "o.png", "histogram")
    with pytest.raises(ValueError, match="overwrite the input"):
        texelflow.apply_file(src, src, SPEC)
    with pytest.raises(ValueError, match="gaussian_blur"):
        texelflow.apply_file(src, tmp_path / "o.png", "gausian_blur(sigma=2)")
    assert not (tmp_path / "o.png").exists()
    # an output that is a folder is an OSError naming the output, and the folder stays (issue 29 item 1)
    (tmp_path / "folder.png").mkdir()
    with pytest.raises(OSError, match="folder.png"):
        texelflow.apply_file(src, tmp_path / "folder.png", SPEC)
    assert (tmp_path / "folder.png").is_dir()
    # a PNG cut short: an error, or with allow_truncated the rows before the damage and a warning
    cut = tmp_path / "cut.png"
    cut.write_bytes(src.read_bytes()[: src.stat().st_size * 6 // 10])
    for stream in (True, False):
        with pytest.raises(OSError, match="allow-truncated"):
            texelflow.apply_file(cut, tmp_path / "o.png", "brightness(0.1)", stream=stream)
        with pytest.warns(texelflow.TexelflowWarning, match="could not be decoded"):
            r = texelflow.apply_file(cut, tmp_path / "o.png", "brightness(0.1)", stream=stream, allow_truncated=True)
        assert r["streamed"] is stream and len(r["warnings"]) == 1


def test_special_files_are_refused_without_blocking(tmp_path, rng):
    """Issue 29 item 4: a FIFO named as the input blocked `apply_file` forever (nothing writes to it), and
    /dev/zero read as "empty file". Both are refused at once in one line that names the kind of file. The FIFO
    runs in a child process with a time bound, so a regression fails the test instead of hanging it."""
    import os
    import sys

    fifo = tmp_path / "f.png"
    os.mkfifo(fifo)
    code = (
        "import texelflow, sys\n"
        "try:\n"
        f"    texelflow.apply_file({str(fifo)!r}, {str(tmp_path / 'o.png')!r}, 'brightness(0.1)')\n"
        "except OSError as e:\n"
        "    print(e); sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "FIFO" in done.stdout and "not a regular file" in done.stdout
    assert not (tmp_path / "o.png").exists()
    if os.path.exists("/dev/zero"):
        with pytest.raises(OSError, match="device"):
            texelflow.apply_file("/dev/zero", tmp_path / "o.png", "brightness(0.1)")


def test_shrink_on_load(tmp_path, cli):
    """Issue 30: a JPEG before a leading shrink is decoded at a DCT scale (1/4 here) by default,
    as the CLI does; shrink_on_load=False decodes it in full, as --no-shrink-on-load. The two
    differ within the stated bound (4 levels on photo-like content), streamed or not."""
    h, w = 384, 512
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    fx, fy = x / w, y / h
    t = ((x.astype(np.int64) * 7 + y.astype(np.int64) * 13) % 17) * 1.5
    blob = (1 - np.minimum(np.hypot(fx - 0.4, fy - 0.5) * 3, 1)) * 120
    img = np.stack([40 + 150 * fx + blob * 0.5 + t, 30 + 120 * fy + 20 * np.sin(fx * 40) * np.cos(fy * 25) + blob * 0.3, 200 - 140 * fx * fy + t - blob * 0.4], axis=-1)
    src = tmp_path / "photo.jpg"
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(src, quality=90)
    spec = "resize(width=100, height=75, method=area)"
    out = {}
    for shrink in (True, False):
        for stream in (True, False):
            p = tmp_path / f"py-{shrink}-{stream}.png"
            r = texelflow.apply_file(src, p, spec, cpu=True, stream=stream, shrink_on_load=shrink)
            assert r["streamed"] is stream, r
            out[shrink, stream] = np.asarray(Image.open(p))
        assert out[shrink, True].shape == (75, 100, 4)
        assert np.array_equal(out[shrink, True], out[shrink, False]), "streamed differs from whole"
        c = tmp_path / f"cli-{shrink}.png"
        flag = [] if shrink else ["--no-shrink-on-load"]
        subprocess.run([cli, *flag, "--cpu", "apply", str(src), str(c), "-p", spec], check=True, capture_output=True, timeout=120)
        assert np.array_equal(out[shrink, False], np.asarray(Image.open(c))), f"shrink_on_load={shrink} differs from the CLI"
    d = np.abs(out[True, False].astype(int) - out[False, False].astype(int)).max()
    assert 0 < d <= 4, d


def test_jpeg_encoded_on_the_device_is_the_hosts(tmp_path, cli):
    """Issue 30: a JPEG output of a whole run on a GPU (lavapipe in CI) is encoded there by
    default; ``host_encode=True`` encodes on the host. The files are the same bytes, and the
    CLI's."""
    h, w = 96, 131
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 2 % 256, y * 3 % 256, (x + y) % 256], axis=-1).astype(np.uint8)
    src = tmp_path / "in.png"
    Image.fromarray(img).save(src)
    spec = "gaussian_blur(sigma=1) | saturation(1.2)"
    files = {}
    for host in (False, True):
        p = tmp_path / f"out-{host}.jpg"
        texelflow.apply_file(src, p, spec, host_encode=host, jpeg_quality=85)
        files[host] = p.read_bytes()
    assert files[False] == files[True]
    c = tmp_path / "cli.jpg"
    subprocess.run([cli, "--gpu", "apply", str(src), str(c), "-p", spec, "--quality", "85"], check=True, capture_output=True, timeout=120)
    assert c.read_bytes() == files[False]
