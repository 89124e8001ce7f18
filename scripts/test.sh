#!/usr/bin/env bash
# Runs the whole test suite. GPU tests run on a real Vulkan adapter, or on Mesa's lavapipe
# (software Vulkan) where the machine has no GPU: installed here when no driver is present.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
  echo "test.sh: no Vulkan driver found; installing mesa-vulkan-drivers (lavapipe)"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers >/dev/null
fi
# Mesa's WSI code complains without it; compute needs no display.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
cargo test --workspace --locked "$@"
