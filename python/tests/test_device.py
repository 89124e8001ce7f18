"""Device selection (issue 34): ``adapter=`` takes a selector (index, PCI bus id, UUID, name),
``CUDA_VISIBLE_DEVICES`` is honoured where no adapter is named, and ``device="auto"`` runs the
CPU reference rather than a software rasterizer. Each case that depends on the environment runs
in a Python process of its own (the module reads the environment when it opens a device)."""

import json
import os
import subprocess
import sys

import pytest

import texelflow


def _fresh(code: str, **env: str) -> dict:
    """Runs `code` (which prints one JSON line last) in a new interpreter with the environment
    less the device variables, plus `env`."""
    e = {k: v for k, v in os.environ.items() if k not in ("WGPU_BACKEND", "WGPU_ADAPTER_NAME", "CUDA_VISIBLE_DEVICES")}
    e.update(env)
    prelude = "import json, warnings, texelflow\nwarnings.simplefilter('always')\n"
    r = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, env=e)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


_AUTO = """
with warnings.catch_warnings(record=True) as w:
    name = texelflow.device_name()
print(json.dumps({"name": name, "warnings": [str(x.message) for x in w], "devices": texelflow.devices()}))
"""


def test_devices_carry_their_ids():
    listed = texelflow.devices()
    for d in listed:
        assert d["uuid"] is None or (d["uuid"].startswith("GPU-") and len(d["uuid"]) == 40), d
        assert d["pci_bus_id"] is None or d["pci_bus_id"].count(":") == 2, d
    if listed:
        # every form of selector finds the adapter it names
        first = listed[0]
        assert texelflow.device_name("gpu", adapter="0").startswith(first["name"])
        if first["uuid"]:
            assert texelflow.device_name("gpu", adapter=first["uuid"]).startswith(first["name"])
            assert texelflow.device_name("gpu", adapter=first["uuid"][4:].replace("-", "")).startswith(first["name"])
        assert texelflow.device_name("gpu", adapter=first["name"][:4].upper()).startswith(first["name"])


def test_bad_selectors_are_one_line_errors():
    with pytest.raises(ValueError, match="is not a GPU UUID"):
        texelflow.device_name("gpu", adapter="GPU-12")
    with pytest.raises(RuntimeError, match=r"no GPU adapter found matching index 99 \(there are: "):
        texelflow.device_name("gpu", adapter="99")


def test_auto_takes_no_software_rasterizer():
    r = _fresh(_AUTO)
    software = bool(r["devices"]) and all(d["type"] == "Cpu" for d in r["devices"])
    if not software:
        pytest.skip("this machine has a hardware GPU")
    assert r["name"] == "CPU reference", r
    assert not any(d["default"] for d in r["devices"]), r
    assert len(r["warnings"]) == 1, r
    assert "only a software rasterizer" in r["warnings"][0], r
    assert 'device="gpu" or adapter= runs on it' in r["warnings"][0], r
    # asked for, it is opened
    r = _fresh(_AUTO, WGPU_BACKEND="vulkan")
    assert r["name"] != "CPU reference", r
    r = _fresh("print(json.dumps({'name': texelflow.device_name('gpu')}))")
    assert r["name"] != "CPU reference", r


def test_cuda_visible_devices():
    # -1 (Ray's actor without GPUs): no NVIDIA GPU, so the CPU reference
    for value in ["-1", ""]:
        r = _fresh(_AUTO, CUDA_VISIBLE_DEVICES=value)
        assert r["name"] == "CPU reference", r
        assert any("hides every NVIDIA GPU" in w for w in r["warnings"]), r
    # a MIG instance: one clear line
    r = _fresh(_AUTO, CUDA_VISIBLE_DEVICES="MIG-GPU-01234567-89ab-cdef-0123-456789abcdef/1/0")
    assert r["name"] == "CPU reference", r
    assert any("MIG instances are not supported" in w for w in r["warnings"]), r
    # an adapter named wins over the variable
    if not texelflow.devices():
        return
    r = _fresh("print(json.dumps({'name': texelflow.device_name('gpu', adapter='0')}))", CUDA_VISIBLE_DEVICES="-1")
    assert r["name"] != "CPU reference", r
