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
    out = pfray.map_images(ds, SPEC, column="image", output_column="result", concurrency=2, batch_size=2, num_gpus=0)
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


def test_plan_resources_leaves_a_cpu_for_reading_and_writing():
    """The rule that keeps a small machine from waiting forever (issue 34: two actors of one
    CPU each on a 2-core machine left nothing to read the images with)."""
    two_cores = (2.0, 0.0, 2.0, 0.0)
    assert pfray.plan_resources(2, None, 0.0, two_cores) == 0.5
    assert pfray.plan_resources(1, None, 0.0, two_cores) == 1.0
    assert pfray.plan_resources(3, None, 0.0, two_cores) == 0.33
    assert pfray.plan_resources(4, None, 0.0, (64.0, 8.0, 16.0, 4.0)) == 1.0
    assert pfray.plan_resources(2, 0.5, 0.0, two_cores) == 0.5
    with pytest.raises(ValueError, match="2 actors x 1 CPU would leave nothing .* num_cpus=0.5"):
        pfray.plan_resources(2, 1.0, 0.0, two_cores)
    with pytest.raises(ValueError, match="more than one"):
        pfray.plan_resources(1, None, 0.0, (1.0, 0.0, 1.0, 0.0))
    with pytest.raises(ValueError, match="no GPU"):
        pfray.plan_resources(1, None, 1.0, two_cores)
    # 4 actors of a whole GPU on a node of 2
    with pytest.raises(ValueError, match="need 4 GPUs .* has 2"):
        pfray.plan_resources(4, None, 1.0, (16.0, 2.0, 16.0, 2.0))
    assert pfray.plan_resources(4, None, 0.5, (16.0, 2.0, 16.0, 2.0)) == 1.0
    # a GPU per actor, but two nodes of one GPU cannot host an actor of two
    with pytest.raises(ValueError, match="2 on one node"):
        pfray.plan_resources(1, None, 2.0, (16.0, 2.0, 8.0, 1.0))
    # Ray not started yet: nothing to check against
    assert pfray.plan_resources(8, None, 1.0, None) == 1.0
    with pytest.raises(ValueError):
        pfray.plan_resources(0, None, 0.0, None)
