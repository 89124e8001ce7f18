#!/usr/bin/env bash
# Session 16's third call: tiles through pad, canvas, transform and position-reading per-pixel
# filters (the fused kernel's new window header) on NVIDIA, tiled and streamed against whole.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; mkdir -p $B
xz -dc .peers/s16/tile_throughput.xz > $B/tile_throughput; chmod +x $B/*
L="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$L"
run() { timeout 150 $B/tile_throughput "$1" "$2" "$3" "$4" "$5" >> "$L" 2>&1; }
run 8192 2048 "brightness(0.1) | contrast(1.2) | vignette | haze(distance=0.1)" 3 1024
run 8192 2048 "tilt_shift | gaussian_blur(sigma=2)" 3 1024
run 8192 2048 "transform(rotate=10, expand=true) | pad(left=100, right=40, mode=reflect)" 3 1024
run 8192 2048 "canvas(width=9000, height=8000, x=300, y=-100) | box_blur(radius=3)" 3 1024
run 8192 2048 "resize(scale=0.7, method=lanczos3) | pad(top=20, bottom=20, mode=replicate)" 3 1024
cat "$L"
