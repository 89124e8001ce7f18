#!/usr/bin/env bash
# Session 16's fourth call: every resize schedule tiled and streamed against whole on NVIDIA
# (a tile takes the schedule the whole image takes; bilinear tiles take `quads`).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; mkdir -p $B
xz -dc .peers/s16/tile_throughput.xz > $B/tile_throughput; chmod +x $B/*
L="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$L"
run() { timeout 120 $B/tile_throughput "$1" "$2" "$3" 3 "$4" 2>&1 | sed -e 's/"tile_sums_ms.*"band"/"band"/' >> "$L"; }
for spec in "resize(scale=2)" "resize(scale=1.5)" "resize(scale=1.37)" "resize(scale=0.5)" "resize(scale=0.7, method=lanczos3)" "resize(scale=1.6, method=lanczos3)" "resize(scale=0.45, method=bicubic)" "resize(scale=2, method=bicubic)" "resize(scale=0.4, method=area)" "resize(scale=1.5, method=area)" "resize(scale=0.6, method=nearest)" "resize(scale=1.3, align_corners=true)" "resize(scale=0.7, method=lanczos3) | pad(top=20, bottom=20, mode=replicate)"; do
  run 4096 1000 "$spec" 512
done
cat "$L"
