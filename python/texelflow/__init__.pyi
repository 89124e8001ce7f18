"""Type stubs of texelflow (docstrings: texelflow/__init__.py, docs/python.md)."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

ImageArray = Union[npt.NDArray[np.uint8], npt.NDArray[np.uint16], npt.NDArray[np.float32]]
Result = Union[np.ndarray, Dict[str, Any]]

class TexelflowWarning(UserWarning): ...

class Port:
    @property
    def desc(self) -> str: ...

class Pipeline:
    def __init__(
        self,
        spec: str,
        *,
        device: str = "auto",
        cpu: bool = False,
        backend: Optional[str] = None,
        adapter: Optional[str] = None,
        images: Optional[Mapping[str, ImageArray]] = None,
    ) -> None: ...
    @property
    def spec(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def last_host_times(self) -> Dict[str, float]: ...
    def run(self, image: ImageArray) -> Result: ...
    def __call__(self, image: ImageArray) -> Result: ...
    def run_batch(self, images: Union[Sequence[ImageArray], np.ndarray], *, in_flight: int = 4) -> Union[List[Result], np.ndarray]: ...
    def input_array(self, shape: Tuple[int, ...], dtype: Any = ...) -> np.ndarray: ...
    def apply_batch(
        self,
        inputs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
        out_dir: Union[str, "os.PathLike[str]"],
        *,
        name: str = ...,
        recursive: bool = ...,
        jobs: Optional[int] = ...,
        gpu_jobs: Optional[int] = ...,
        overwrite: bool = ...,
        skip_existing: bool = ...,
        jpeg_quality: int = ...,
        allow_truncated: bool = ...,
        host_decode: bool = ...,
        host_encode: bool = ...,
        stream: Optional[bool] = ...,
        shrink_on_load: bool = ...,
        timings: bool = ...,
    ) -> Dict[str, Any]: ...

class Graph:
    def __init__(self) -> None: ...
    def source(
        self,
        name: str,
        like: Optional[ImageArray] = None,
        *,
        width: Optional[int] = None,
        height: Optional[int] = None,
        format: str = "rgba8",
        widen_gray: bool = False,
    ) -> Port: ...
    def add(self, call: str, *inputs: Port) -> Union[Port, Tuple[Port, ...]]: ...
    def output(self, name: str, port: Port) -> None: ...
    def run(
        self,
        sources: Mapping[str, ImageArray],
        *,
        device: str = "auto",
        cpu: bool = False,
        backend: Optional[str] = None,
        adapter: Optional[str] = None,
    ) -> Dict[str, Result]: ...

def apply(
    image: ImageArray,
    spec: str,
    *,
    device: str = "auto",
    cpu: bool = False,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
    images: Optional[Mapping[str, ImageArray]] = None,
) -> Result: ...
def apply_file(
    input: Union[str, "os.PathLike[str]"],
    output: Union[str, "os.PathLike[str]"],
    spec: str,
    *,
    device: str = ...,
    cpu: bool = ...,
    backend: Optional[str] = ...,
    adapter: Optional[str] = ...,
    allow_truncated: bool = ...,
    jpeg_quality: int = ...,
    stream: Optional[bool] = ...,
    shrink_on_load: bool = ...,
    host_encode: bool = ...,
) -> Dict[str, Any]: ...

def analyze(
    image: ImageArray,
    *,
    device: str = "auto",
    cpu: bool = False,
    backend: Optional[str] = None,
    adapter: Optional[str] = None,
) -> Dict[str, Any]: ...
def list_filters() -> List[Dict[str, Any]]: ...
def quote(text: str) -> str: ...
def batch_plan(
    inputs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    out_dir: Union[str, "os.PathLike[str]"],
    *,
    name: str = "{stem}.{ext}",
    recursive: bool = False,
) -> List[Tuple[str, str]]: ...
def devices(*, backend: Optional[str] = None, adapter: Optional[str] = None) -> List[Dict[str, str]]: ...
def is_pinned(array: np.ndarray) -> bool: ...
def device_name(device: str = "auto", *, backend: Optional[str] = None, adapter: Optional[str] = None) -> str: ...
