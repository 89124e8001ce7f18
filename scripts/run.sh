#!/usr/bin/env bash
# Builds the texelflow CLI (release) and runs it with the arguments given, on a machine that has
# the Rust toolchain and nothing else:
#   scripts/run.sh apply assets/sample.png out.png --pipeline "gaussian_blur(sigma=2)" --timings
# JPEG goes through libjpeg-turbo, built from source: it needs cmake and nasm. Where they are
# missing they are installed (apt-get, as root or through passwordless sudo); where that cannot
# be done the CLI is built in pure Rust instead (`--no-default-features`: JPEG encoding by the
# `jpeg-encoder` crate, about 3x slower), with a note. TEXELFLOW_PURE_RUST=1 asks for that build.
set -euo pipefail
cd "$(dirname "$0")/.."

features=()
have_tools() { command -v cmake >/dev/null && command -v nasm >/dev/null; }
if [ "${TEXELFLOW_PURE_RUST:-}" = 1 ]; then
  features=(--no-default-features)
elif ! have_tools; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    SUDO="sudo"
  fi
  if command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }; then
    echo "run.sh: installing cmake and nasm (to build libjpeg-turbo)" >&2
    $SUDO apt-get update -qq >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake nasm >/dev/null
  fi
  if ! have_tools; then
    echo "run.sh: note: cmake and nasm are missing and cannot be installed here; building the pure-Rust CLI (JPEG encoding about 3x slower)" >&2
    features=(--no-default-features)
  fi
fi
# Mesa's Vulkan drivers complain without it; compute needs no display.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
exec cargo run --quiet --release --locked -p texelflow-cli "${features[@]}" -- "$@"
