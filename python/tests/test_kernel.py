"""Issue 31: kernels of your own at run time from Python (`texelflow.Kernel`): a user kernel
in a spec equals the same math written with built-ins, byte for byte; bad WGSL is a
ValueError naming line and column; on the CPU it is an error (no twin from Python)."""

import numpy as np
import pytest

import texelflow

# `brightness`, written as a user kernel
ADD = """struct Params { amount: f32 }
fn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {
    return vec4<f32>(c.rgb + vec3<f32>(p.amount), c.a);
}
"""


def _image(seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (23, 37, 4), dtype=np.uint8)


def test_kernel_in_a_spec_equals_the_builtin():
    img = _image()
    k = texelflow.Kernel(code=ADD, amount=0.1)
    assert str(k).startswith('pixel_kernel(code="struct Params')
    mine = texelflow.apply(img, f"exposure(exposure=0.3) | {k} | saturation(saturation=1.2)", device="gpu")
    theirs = texelflow.apply(img, "exposure(exposure=0.3) | brightness(brightness=0.1) | saturation(saturation=1.2)", device="gpu")
    assert np.array_equal(mine, theirs)
    assert not np.array_equal(mine, img)
    # a Kernel alone is a pipeline, and `|` joins it with specs
    alone = texelflow.Pipeline(k, device="gpu").run(img)
    assert np.array_equal(alone, texelflow.apply(img, "brightness(brightness=0.1)", device="gpu"))
    joined = texelflow.apply(img, "exposure(exposure=0.3)" | k, device="gpu")
    assert np.array_equal(joined, texelflow.apply(img, "exposure(exposure=0.3) | brightness(brightness=0.1)", device="gpu"))


def test_kernel_from_a_file(tmp_path):
    path = tmp_path / "add.wgsl"
    path.write_text(ADD)
    img = _image(5)
    mine = texelflow.apply(img, texelflow.Kernel(file=path, amount=-0.2), device="gpu")
    assert np.array_equal(mine, texelflow.apply(img, "brightness(brightness=-0.2)", device="gpu"))


def test_bad_kernels_are_value_errors_with_their_place(tmp_path):
    path = tmp_path / "warm.wgsl"
    path.write_text("struct Params { amount: f32 }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    let x = c.r +;\n    return c;\n}\n")
    with pytest.raises(ValueError, match=r"warm\.wgsl:3:18: "):
        texelflow.Pipeline(texelflow.Kernel(file=path, amount=0.3), device="gpu")
    with pytest.raises(ValueError, match=r"unknown parameter `amout`"):
        texelflow.Pipeline(texelflow.Kernel(code=ADD, amount=0.1, amout=1), device="gpu")
    with pytest.raises(ValueError, match=r"code=\.\.\. or file=\.\.\."):
        texelflow.Kernel()
    with pytest.raises(ValueError, match=r"not a number"):
        texelflow.Kernel(code=ADD, amount="bright")


def test_kernel_on_the_cpu_is_an_error():
    with pytest.raises(Exception, match=r"no CPU twin"):
        texelflow.apply(_image(), texelflow.Kernel(code=ADD, amount=0.1), device="cpu")
