#!/usr/bin/env bash
# Runs the whole test suite. GPU tests run on a real Vulkan adapter, or on Mesa's lavapipe
# (software Vulkan) where the machine has no GPU: installed here when no driver is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the tests need from the system, installed only where missing (one apt-get update):
# a Vulkan driver (Mesa's lavapipe, software Vulkan, where the machine has none), cmake and
# nasm (libjpeg-turbo, the `turbojpeg` feature, is built from source) and ffmpeg (the video
# tests run it; they would skip without it).
has_vulkan_driver() {
  local f
  for f in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json; do
    [ -e "$f" ] && return 0
  done
  return 1
}
missing=()
has_vulkan_driver || missing+=(mesa-vulkan-drivers)
command -v cmake >/dev/null || missing+=(cmake)
command -v nasm >/dev/null || missing+=(nasm)
{ command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; } || missing+=(ffmpeg)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Structure first (seconds): formatting, and the layer rule of docs/ARCHITECTURE.md (no
# module imports one of a higher layer; scripts/layers.py lists the layers).
cargo fmt --all --check
# `cargo fmt` does not reach the filter files (build.rs includes them by `#[path]`): check every file.
find crates -name '*.rs' -print0 | xargs -0 rustfmt --check --edition 2021
python3 scripts/layers.py
# Lints: clippy's default groups and the workspace's `[workspace.lints]` (missing_docs), every
# target and feature (`bench` pulls in ash), warnings as errors.
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
# The library in a browser (issue 33): it compiles for wasm32-unknown-unknown (wgpu's WebGPU
# backend) without its native-only features (libjpeg-turbo, video); checked, never built.
rustup target list --installed | grep -q wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
cargo clippy -p texelflow -p texelflow-web --target wasm32-unknown-unknown --no-default-features --locked -- -D warnings
# Mesa's WSI code complains without it; compute needs no display.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
# every crate: the library, the benchmark harness (crates/texelflow-bench: its probes and a few
# cases timed on the GPU, seconds), the CLI; the Python crate's tests are python/tests below
cargo test --workspace --locked "$@"
# texelflow against OpenCV where OpenCV has the same operation (scripts/opencv_compare.py),
# in a virtual environment of its own under target/
VENV=target/opencv-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import cv2, numpy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check numpy opencv-python-headless
fi
"$VENV/bin/python" scripts/opencv_compare.py target/debug/texelflow
# The Python package (crates/texelflow-py + python/texelflow, issue 19) in a virtual environment
# of its own under target/: built by `maturin develop` (a debug build sharing target/debug),
# then python/tests: every filter against the CLI binary above, arrays of every dtype and
# layout, errors, the graph API, and texelflow.ray on a three-node local Ray cluster.
PYVENV=target/py-venv
if [ ! -x "$PYVENV/bin/python" ] || ! "$PYVENV/bin/python" -c "import maturin, numpy, pytest, ray.data, PIL" 2>/dev/null; then
  python3 -m venv "$PYVENV"
  "$PYVENV/bin/pip" install -q --disable-pip-version-check maturin==1.16.0 numpy==2.4.6 pytest==9.2.0 "ray[data]==2.60.0" pillow==13.0.0
fi
(. "$PYVENV/bin/activate" && maturin develop --quiet)
TEXELFLOW_CLI=target/debug/texelflow "$PYVENV/bin/python" -m pytest -q -p no:cacheprovider python/tests
# The browser (issue 33): the bundle for wasm32 (wasm-bindgen's CLI installed once under
# target/tools), then web/test.html and the playground in headless Chromium on SwiftShader's
# WebGPU, through puppeteer-core (both installed where missing): GPU results against the CPU
# twins in the page, the playground used as a person would, and a browser without WebGPU.
scripts/test-web.sh
