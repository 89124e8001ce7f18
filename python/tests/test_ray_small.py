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
