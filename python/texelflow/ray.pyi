from typing import Any, Dict, List, Mapping, Optional

import numpy as np

from . import Pipeline

class TexelflowMapper:
    pipeline: Pipeline
    notes: List[str]
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
    num_cpus: float = 1.0,
    batch_size: int = 16,
    device: str = "auto",
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    images: Optional[Mapping[str, np.ndarray]] = None,
    in_flight: int = 4,
    **map_batches_args: Any,
) -> Any: ...
