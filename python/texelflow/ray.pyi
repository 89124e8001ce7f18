from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import Pipeline

class TexelflowMapper:
    pipeline: Pipeline
    notes: List[str]
    gpu_ids: List[str]
    column: str
    output_column: str
    in_flight: int
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
    ) -> None: ...
    @property
    def device(self) -> str: ...
    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]: ...

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
) -> Any: ...

def plan_resources(
    concurrency: int,
    num_cpus: Optional[float],
    num_gpus: float,
    cluster: Optional[Tuple[float, float, float, float]],
) -> float: ...

class TexelflowFileMapper:
    pipeline: Pipeline
    notes: List[str]
    gpu_ids: List[str]
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
    ) -> None: ...
    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]: ...

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
) -> Dict[str, Any]: ...
