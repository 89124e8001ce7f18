"""texelflow.ray on a machine of two cores: two actors must not take every CPU and leave
nothing to read the images with (issue 34: Ray waited forever), and asking for more than the
machine has fails at once with one line."""

import numpy as np
import pytest
from PIL import Image

import texelflow
import texelflow.ray as pfray

ray = pytest.importorskip("ray", reason="ray[data] is not installed (scripts/test.sh installs it)")

SPEC = "gaussian_blur(sigma=1) | color_invert"


@pytest.fixture(scope="module")
def two_cores():
    ray.init(num_cpus=2, num_gpus=0, object_store_memory=80 << 20, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_actors_on_two_cores_finish(two_cores, tmp_path, rng):
    for i in range(6):
        Image.fromarray(rng.integers(0, 256, size=(24 + i, 31, 4), dtype=np.uint8)).save(tmp_path / f"n{i}.png")
    ds = ray.data.read_images(str(tmp_path), include_paths=True, mode="RGBA")
    out = pfray.map_images(ds, SPEC, concurrency=2, batch_size=2)
    rows = out.take_all()
    assert len(rows) == 6
    single = texelflow.Pipeline(SPEC)
    for row in rows:
        np.testing.assert_array_equal(row["image"], single.run(np.asarray(Image.open(row["path"]).convert("RGBA"))))


def test_what_the_machine_cannot_host_fails_at_once(two_cores):
    ds = ray.data.from_items([{"x": 1}])
    with pytest.raises(ValueError, match="2 actors x 1 CPU"):
        pfray.map_images(ds, SPEC, concurrency=2, num_cpus=1)
    with pytest.raises(ValueError, match="no GPU"):
        pfray.map_images(ds, SPEC, concurrency=1, num_gpus=1)


def test_apply_files_names_outputs_after_inputs(two_cores, tmp_path, rng):
    """The files route (what the example runs): outputs named as the CLI's batch names them,
    subfolders kept, each equal to the file run alone; a bad file is reported, not raised."""
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    names = ["a.png", "b.png", "sub/c.png", "sub/d.png", "e.png"]
    for i, n in enumerate(names):
        Image.fromarray(rng.integers(0, 256, size=(20 + i, 27, 4), dtype=np.uint8)).save(src / n)
    (src / "broken.png").write_bytes(b"not a png")
    out = tmp_path / "out"
    r = pfray.apply_files([str(src)], str(out), SPEC, recursive=True, concurrency=2, batch_size=2)
    assert r["done"] == len(names), r
    assert [p for p, _ in r["failed"]] == [str(src / "broken.png")], r
    assert sum(r["devices"].values()) == len(names) + 1
    single = texelflow.Pipeline(SPEC)
    for n in names:
        got = np.asarray(Image.open(out / n))
        want = single.run(np.asarray(Image.open(src / n).convert("RGBA")))
        np.testing.assert_array_equal(got, want, err_msg=n)
    # the batch's checks come first: an output folder inside the inputs that would be an input
    with pytest.raises(ValueError):
        pfray.apply_files([str(src / "a.png")], str(src), SPEC, name="{name}", concurrency=1)
    # the example script, as a user runs it (its own local Ray): the folder's files written
    # under their names and counted; a missing input is a failed file, said in one line, and
    # the exit code is 1
    import pathlib
    import subprocess
    import sys

    ex = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ray_images.py"
    run = lambda *a: subprocess.run([sys.executable, str(ex), *a, "-p", SPEC, "--actors", "2"], capture_output=True, text=True, timeout=300)
    p = run(str(src / "sub"), str(tmp_path / "o2"))
    assert p.returncode == 0, p.stderr[-800:]
    assert "2 written, 0 failed" in p.stdout, p.stdout
    assert sorted(f.name for f in (tmp_path / "o2").iterdir()) == ["c.png", "d.png"]
    p = run(str(tmp_path / "missing"), str(tmp_path / "o3"))
    assert p.returncode == 1, p.stderr[-800:]
    # Ray's own log lines aside (its C++ core logs to stderr), one line of ours and no traceback
    ours = [l for l in p.stderr.splitlines() if l.startswith(("failed: ", "error: "))]
    assert len(ours) == 1 and "file not found" in ours[0], p.stderr[-800:]
    assert "Traceback" not in p.stderr, p.stderr[-800:]
