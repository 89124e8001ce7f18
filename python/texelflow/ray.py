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
from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from . import Pipeline, TexelflowWarning

__all__ = ["TexelflowMapper", "map_images"]


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
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TexelflowWarning)
            self.pipeline = Pipeline(spec, device=device, backend=backend, adapter=adapter, images=images)
        # the fallback to the CPU, once per actor, in the worker's log
        self.notes = [str(w.message) for w in caught]
        for note in self.notes:
            print(f"texelflow: {note}", flush=True)
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


def map_images(
    dataset: Any,
    spec: str,
    *,
    column: str = "image",
    output_column: Optional[str] = None,
    concurrency: int = 1,
    num_gpus: float = 0.0,
    num_cpus: float = 1.0,
    batch_size: int = 16,
    device: str = "auto",
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    images: Optional[Mapping[str, np.ndarray]] = None,
    in_flight: int = 4,
    **map_batches_args: Any,
) -> Any:
    """``dataset.map_batches`` with ``concurrency`` ``TexelflowMapper`` actors, each reserving
    ``num_gpus`` GPUs and ``num_cpus`` CPUs (Ray's scheduling; on a GPU cluster give
    ``num_gpus=1``, or a fraction to put several actors on one GPU). Other keyword arguments
    go to ``map_batches``."""
    return dataset.map_batches(
        TexelflowMapper,
        fn_constructor_args=(spec,),
        fn_constructor_kwargs=dict(column=column, output_column=output_column, device=device, backend=backend, adapter=adapter, images=images, in_flight=in_flight),
        batch_format="numpy",
        batch_size=batch_size,
        concurrency=concurrency,
        num_gpus=num_gpus,
        num_cpus=num_cpus,
        **map_batches_args,
    )
