#!/usr/bin/env bash
# Session 16's second call: the chain the first call's script cut at its pipes (its field
# separator), and a turn and a crop, in memory (side tile spec in_flight band).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; mkdir -p $B
for x in tile_throughput; do xz -dc .peers/s16/$x.xz > $B/$x; done; chmod +x $B/*
L="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$L"
run() { timeout 150 $B/tile_throughput "$1" "$2" "$3" "$4" "$5" >> "$L" 2>&1; }
run 16384 4096 "gaussian_blur(sigma=8) | resize(scale=0.5) | sobel_edge_detection" 3 512
run 16384 4096 "gaussian_blur(sigma=8) | resize(scale=0.5) | sobel_edge_detection" 3 1024
run 16384 4096 "gaussian_blur(sigma=8) | sobel_edge_detection" 3 1024
run 16384 4096 "rotate90 | sobel_edge_detection" 3 1024
run 16384 4096 "crop(x=0.1, y=0.1, width=0.8, height=0.8) | gaussian_blur(sigma=4)" 3 1024
cat "$L"
