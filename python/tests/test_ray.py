"""texelflow.ray on a local Ray cluster of three nodes (ray.cluster_utils.Cluster): the
distributed result equals the single-process result for every image; the mapper falls back to
the CPU where there is no GPU adapter."""

import numpy as np
import pytest
from PIL import Image

import texelflow
import texelflow.ray as pfray

ray = pytest.importorskip("ray", reason="ray[data] is not installed (scripts/test.sh installs it)")

SPEC = "gaussian_blur(sigma=2) | sobel_edge_detection | color_invert"


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory, rng, repo):
    """Nine small RGBA PNGs of three sizes: crops of the sample with noise added."""
    d = tmp_path_factory.mktemp("ray_images")
    base = np.asarray(Image.open(repo / "assets" / "sample.png").convert("RGBA"))
    for i in range(9):
        h, w = [(40, 56), (33, 47), (64, 64)][i % 3]
        y, x = 10 * i, 20 * i
        crop = base[y:y + h, x:x + w].astype(np.int16) + rng.integers(-20, 20, size=(h, w, 4))
        crop[..., 3] = 255
        Image.fromarray(np.clip(crop, 0, 255).astype(np.uint8)).save(d / f"img{i}.png")
    return d


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 80 << 20, "include_dashboard": False})
    for _ in range(2):
        c.add_node(num_cpus=2, object_store_memory=80 << 20)
    ray.init(address=c.address, log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


def test_distributed_equals_single_process(cluster, image_dir):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 3
    ds = ray.data.read_images(str(image_dir), include_paths=True, mode="RGBA")
    out = pfray.map_images(ds, SPEC, column="image", output_column="result", concurrency=2, batch_size=2, num_gpus=0, scheduling_strategy="SPREAD")
    rows = out.take_all()
    assert len(rows) == 9
    single = texelflow.Pipeline(SPEC)
    for row in rows:
        expected = single.run(np.asarray(Image.open(row["path"]).convert("RGBA")))
        assert row["result"].shape == expected.shape, row["path"]
        np.testing.assert_array_equal(row["result"], expected, err_msg=row["path"])


def test_mapper_falls_back_to_cpu_without_an_adapter(image_dir):
    """Called directly (no Ray needed): an actor that finds no adapter runs on the CPU."""
    mapper = pfray.TexelflowMapper(SPEC, adapter="no-such-adapter")
    assert mapper.device == "CPU reference"
    assert any("CPU reference" in n for n in mapper.notes)
    images = [np.asarray(Image.open(p).convert("RGBA")) for p in sorted(image_dir.glob("*.png"))[:3]]
    column = np.empty(3, dtype=object)
    column[:] = images
    batch = mapper({"image": column, "path": np.array(["a", "b", "c"])})
    for got, img in zip(batch["image"], images):
        np.testing.assert_array_equal(got, texelflow.apply(img, SPEC, cpu=True))
    # images of one size come back stacked
    same = np.stack([images[0], images[0]])
    assert mapper({"image": same})["image"].shape == (2,) + images[0].shape
