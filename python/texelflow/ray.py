"""Ray Data integration: a texelflow pipeline over a ``ray.data.Dataset`` of images.

    import ray, texelflow.ray
    ds = ray.data.read_images("s3://bucket/photos/", include_paths=True)
    out = texelflow.ray.map_images(ds, "gaussian_blur(sigma=2) | sobel_edge_detection",
                                   concurrency=4, num_gpus=0.25)   # 4 actors sharing each GPU
    out.write_images("/tmp/edges", column="image", file_format="png")

Each actor (``TexelflowMapper``) opens its device and parses the pipeline once, then runs
every batch it gets through ``Pipeline.run_batch`` (several images in flight, GIL released).
``num_gpus`` is what Ray reserves for each actor (a fraction shares a GPU); an actor opens the
GPU Ray assigned it (Ray sets ``CUDA_VISIBLE_DEVICES``, which texelflow honours where no
``adapter`` is given). An actor whose machine has no GPU adapter, or only a software rasterizer,
or that Ray gave no GPU, runs on the CPU reference implementation (``device="auto"``, the
default) and says so once in its log; ``device="gpu"`` makes such an actor fail instead.
docs/ray.md has the multi-node setup.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import Pipeline, TexelflowWarning

__all__ = ["TexelflowMapper", "TexelflowFileMapper", "apply_files", "map_images", "plan_resources"]


def _column(values: List[Any]) -> np.ndarray:
    """Results as one batch column: a stacked array when every result is an array of the same
    shape and dtype (the copy also frees the read-back buffers at once), else an object array
    (images of several sizes, or dicts of data results)."""
    if values and all(isinstance(v, np.ndarray) for v in values) and len({(v.shape, v.dtype) for v in values}) == 1:
        return np.stack(values)
    column = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        column[i] = np.array(v) if isinstance(v, np.ndarray) else v
    return column


def _ray_gpu_ids() -> List[str]:
    """The GPUs Ray assigned to this worker (empty outside Ray or without GPUs)."""
    try:
        import ray

        if ray.is_initialized():
            return [str(i) for i in ray.get_runtime_context().get_accelerator_ids().get("GPU", [])]
    except Exception:  # an old Ray, or not a worker: nothing to report
        pass
    return []


def _open_pipeline(spec: str, **kwargs: Any) -> Tuple[Pipeline, List[str], List[str]]:
    """An actor's pipeline, the notes it raised and the GPUs Ray gave the actor, both said once
    in the worker's log. Ray gives an actor its GPUs through CUDA_VISIBLE_DEVICES, which
    texelflow maps to the Vulkan adapter of the same GPU."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TexelflowWarning)
        pipeline = Pipeline(spec, **kwargs)
    # the fallback to the CPU, once per actor
    notes = [str(w.message) for w in caught]
    for note in notes:
        print(f"texelflow: {note}", flush=True)
    gpu_ids = _ray_gpu_ids()
    if gpu_ids:
        print(f"texelflow: actor on {pipeline.device} (Ray's GPU {', '.join(gpu_ids)})", flush=True)
    return pipeline, notes, gpu_ids


def _actor_pool(dataset: Any, mapper: type, spec: str, kwargs: Dict[str, Any], *, batch_size: int, concurrency: int, num_gpus: float, num_cpus: Optional[float], **map_batches_args: Any) -> Any:
    """``dataset.map_batches`` over a pool of ``concurrency`` ``mapper`` actors, their resources
    planned and checked by ``plan_resources``."""
    from ray.data import ActorPoolStrategy

    return dataset.map_batches(
        mapper,
        fn_constructor_args=(spec,),
        fn_constructor_kwargs=kwargs,
        batch_format="numpy",
        batch_size=batch_size,
        compute=ActorPoolStrategy(size=concurrency),
        num_gpus=num_gpus,
        num_cpus=plan_resources(concurrency, num_cpus, num_gpus, _cluster()),
        **map_batches_args,
    )


class TexelflowMapper:
    """A callable class for ``Dataset.map_batches(TexelflowMapper, fn_constructor_args=(spec,),
    batch_format="numpy", ...)``: one pipeline per actor, applied to the ``column`` of each
    batch (a stacked (N, H, W, C) array or an object array of images of several sizes), the
    results written to ``output_column`` (default: the same column).

    ``device``, ``backend``, ``adapter`` and ``images`` are ``Pipeline``'s; ``in_flight`` is the
    number of images of a batch on the device at once."""

    def __init__(
        self,
        spec: str,
        *,
        column: str = "image",
        output_column: Optional[str] = None,
        device: str = "auto",
        backend: Optional[str] = None,
        adapter: Optional[str] = None,
        images: Optional[Mapping[str, np.ndarray]] = None,
        in_flight: int = 4,
    ) -> None:
        self.pipeline, self.notes, self.gpu_ids = _open_pipeline(spec, device=device, backend=backend, adapter=adapter, images=images)
        self.column = column
        self.output_column = output_column or column
        self.in_flight = in_flight

    @property
    def device(self) -> str:
        """Where this actor's pipeline runs."""
        return self.pipeline.device

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        if self.column not in batch:
            raise ValueError(f"the batch has no column `{self.column}` (columns: {', '.join(batch)}); pass column=")
        images = list(batch[self.column])
        results = self.pipeline.run_batch(images, in_flight=self.in_flight) if images else []
        out = dict(batch)
        out[self.output_column] = _column(results)
        return out


def _cluster() -> Optional[Tuple[float, float, float, float]]:
    """The running Ray cluster's CPUs and GPUs, in all and on its largest node, or None where
    Ray is not started yet (it starts on the first dataset's execution)."""
    import ray

    if not ray.is_initialized():
        return None
    total = ray.cluster_resources()
    nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    return (
        float(total.get("CPU", 0.0)),
        float(total.get("GPU", 0.0)),
        max((float(r.get("CPU", 0.0)) for r in nodes), default=0.0),
        max((float(r.get("GPU", 0.0)) for r in nodes), default=0.0),
    )


def plan_resources(
    concurrency: int,
    num_cpus: Optional[float],
    num_gpus: float,
    cluster: Optional[Tuple[float, float, float, float]],
) -> float:
    """The CPUs each of ``concurrency`` actors reserves (``num_cpus``, or by default one, less
    where the cluster is small), after checking that the cluster can host them *and* still read
    and write the images: Ray Data's read and write tasks need a CPU each, so actors that hold
    every CPU wait forever for input that never comes. Raises ``ValueError`` with one line
    saying what to change. ``cluster`` is ``(cpus, gpus, cpus of the largest node, gpus of the
    largest node)``, or None where Ray has not started (then nothing is checked)."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    if num_cpus is not None and num_cpus < 0:
        raise ValueError(f"num_cpus must not be negative, not {num_cpus}")
    if num_gpus < 0:
        raise ValueError(f"num_gpus must not be negative, not {num_gpus}")
    if cluster is None:
        return 1.0 if num_cpus is None else num_cpus
    cpus, gpus, node_cpus, node_gpus = cluster
    # one CPU stays free for reading and writing
    spare = cpus - 1.0
    if spare <= 0:
        raise ValueError(
            f"this Ray cluster has {cpus:g} CPU: the actors and the tasks that read and write the "
            "images need more than one (start Ray with more, e.g. ray.init(num_cpus=2))"
        )
    if num_cpus is None:
        # a fraction where the cluster is small: the actors' host work is light beside the GPU's
        num_cpus = min(1.0, node_cpus, int(spare / concurrency * 100) / 100)
        if num_cpus < 0.01:
            raise ValueError(
                f"{concurrency} actors cannot share this cluster's {cpus:g} CPUs and leave one for "
                "reading and writing the images; ask for fewer actors"
            )
    elif concurrency * num_cpus > spare + 1e-9 or num_cpus > node_cpus:
        raise ValueError(
            f"{concurrency} actors x {num_cpus:g} CPU would leave nothing of this cluster's {cpus:g} "
            f"CPUs to read and write the images (Ray would wait forever); ask for fewer actors or "
            f"num_cpus={max(0.01, int(spare / concurrency * 100) / 100):g}"
        )
    if num_gpus > 0:
        if gpus <= 0:
            raise ValueError(
                f"num_gpus={num_gpus:g} but this Ray cluster has no GPU (Ray counts a node's GPUs "
                "by CUDA; start it with --num-gpus=N where Vulkan sees GPUs that CUDA does not), "
                "or pass num_gpus=0 to run on the CPUs"
            )
        if concurrency * num_gpus > gpus + 1e-9 or num_gpus > node_gpus:
            raise ValueError(
                f"{concurrency} actors x {num_gpus:g} GPU need {concurrency * num_gpus:g} GPUs "
                f"(and {num_gpus:g} on one node); this Ray cluster has {gpus:g}"
                f" ({node_gpus:g} on its largest node): ask for fewer actors or a fraction of a GPU each"
            )
    return num_cpus


def map_images(
    dataset: Any,
    spec: str,
    *,
    column: str = "image",
    output_column: Optional[str] = None,
    concurrency: int = 1,
    num_gpus: float = 0.0,
    num_cpus: Optional[float] = None,
    batch_size: int = 16,
    device: str = "auto",
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    images: Optional[Mapping[str, np.ndarray]] = None,
    in_flight: int = 4,
    **map_batches_args: Any,
) -> Any:
    """``dataset.map_batches`` with a pool of ``concurrency`` ``TexelflowMapper`` actors
    (``compute=ray.data.ActorPoolStrategy(size=concurrency)``), each reserving ``num_gpus``
    GPUs (on a GPU cluster ``1``, or a fraction to put several actors on one GPU) and
    ``num_cpus`` CPUs (default: one, less where the cluster is small, so that a CPU stays free
    for reading and writing; ``plan_resources`` has the rule and the checks, which raise a
    ``ValueError`` at once where Ray would wait forever). Other keyword arguments go to
    ``map_batches`` (its named parameters: Ray deprecates the rest)."""
    kwargs = dict(column=column, output_column=output_column, device=device, backend=backend, adapter=adapter, images=images, in_flight=in_flight)
    return _actor_pool(dataset, TexelflowMapper, spec, kwargs, batch_size=batch_size, concurrency=concurrency, num_gpus=num_gpus, num_cpus=num_cpus, **map_batches_args)


class TexelflowFileMapper:
    """A callable class for ``Dataset.map_batches`` over rows of ``input`` and ``output`` paths
    (what ``apply_files`` makes): one pipeline per actor; each batch's files go through
    ``Pipeline.apply_batch`` (texelflow's own decode and encode, on the GPU where it can,
    several files in flight), grouped by output folder. Returns the rows with ``ok`` and
    ``reason`` (empty where written)."""

    def __init__(
        self,
        spec: str,
        *,
        name: str,
        overwrite: bool = False,
        skip_existing: bool = False,
        jpeg_quality: int = 90,
        device: str = "auto",
        backend: Optional[str] = None,
        adapter: Optional[str] = None,
    ) -> None:
        self.pipeline, self.notes, self.gpu_ids = _open_pipeline(spec, device=device, backend=backend, adapter=adapter)
        self.options = dict(name=name, overwrite=overwrite, skip_existing=skip_existing, jpeg_quality=jpeg_quality)

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        import os

        inputs = [str(p) for p in batch["input"]]
        outputs = [str(p) for p in batch["output"]]
        reasons = {p: "" for p in inputs}
        groups: Dict[str, List[str]] = {}
        for i, o in zip(inputs, outputs):
            groups.setdefault(os.path.dirname(o), []).append(i)
        for folder, files in groups.items():
            try:
                r = self.pipeline.apply_batch(files, folder, **self.options)
                for path, why in r["failed"]:
                    reasons[str(path)] = why
            except (ValueError, OSError) as e:
                for f in files:
                    reasons[f] = str(e)
        out = dict(batch)
        out["ok"] = np.array([not reasons[i] for i in inputs])
        out["reason"] = np.array([reasons[i] for i in inputs], dtype=object)
        out["device"] = np.array([self.pipeline.device] * len(inputs), dtype=object)
        return out


def apply_files(
    inputs: Sequence[str],
    out_dir: str,
    spec: str,
    *,
    name: str = "{stem}.{ext}",
    recursive: bool = False,
    overwrite: bool = False,
    skip_existing: bool = False,
    jpeg_quality: int = 90,
    concurrency: int = 1,
    num_gpus: float = 0.0,
    num_cpus: Optional[float] = None,
    batch_size: int = 8,
    device: str = "auto",
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
) -> Dict[str, Any]:
    """Files through ``spec`` on a pool of ``concurrency`` Ray actors (``TexelflowFileMapper``,
    each on the GPU Ray gave it: ``num_gpus=1`` for one actor per GPU), written into
    ``out_dir`` under the names texelflow's batch gives them (``name``: ``{stem}``, ``{name}``,
    ``{ext}``; a folder's subfolders kept with ``recursive``), so each output is found from its
    input. The inputs and ``out_dir`` must be on storage every node reads. The files are listed
    and every batch check made (an output that would replace an input, two inputs writing one
    output, an output folder that cannot be written) before any work, as the CLI does
    (``texelflow.batch_plan``). Runs at once and returns ``{"done", "failed": [(input,
    reason)], "devices": {device: files}}``; resources are checked as ``map_images`` checks
    them."""
    import ray

    from . import batch_plan

    pairs = batch_plan(list(inputs), out_dir, name=name, recursive=recursive)
    # a block per batch, so that every actor gets work; no more actors than blocks
    blocks = max(1, -(-len(pairs) // max(1, batch_size)))
    concurrency = max(1, min(concurrency, blocks))
    ds = ray.data.from_items([{"input": i, "output": o} for i, o in pairs], override_num_blocks=blocks)
    kwargs = dict(name=name, overwrite=overwrite, skip_existing=skip_existing, jpeg_quality=jpeg_quality, device=device, backend=backend, adapter=adapter)
    rows = _actor_pool(ds, TexelflowFileMapper, spec, kwargs, batch_size=batch_size, concurrency=concurrency, num_gpus=num_gpus, num_cpus=num_cpus).take_all()
    devices: Dict[str, int] = {}
    for r in rows:
        devices[str(r["device"])] = devices.get(str(r["device"]), 0) + 1
    return {
        "done": sum(1 for r in rows if r["ok"]),
        "failed": [(str(r["input"]), str(r["reason"])) for r in rows if not r["ok"]],
        "devices": devices,
    }
