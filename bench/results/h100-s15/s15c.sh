#!/usr/bin/env bash
# Session 15's third device call: streamed bands split into at least 3 tiles (overlap within a
# band): in-memory throughput against whole, and the 12000x8000 / 20000x20000 PNGs through apply.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; W=/tmp/w; mkdir -p $B $W
for x in pixelflow tile_throughput big_image; do xz -dc .peers/s15/$x.xz > $B/$x; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/log.txt"
SPEC="gaussian_blur(sigma=8) | sobel_edge_detection"
for a in "16384 4096 3 1024" "16384 4096 3 2048" "16384 2048 8 1024" "20000 4096 4 1024" "16384 4096 3 1024"; do
  set -- $a
  timeout 120 $B/tile_throughput $1 $2 "$SPEC" $3 $4 2>&1 | tee -a "$OUT/tiles.json"
done
$B/big_image make 12000 8000 $W/b12k.png
$B/big_image make 20000 20000 $W/b20k.png
for img in b12k b20k b20k; do
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > /tmp/m.txt & p=$!
  timeout 150 $B/pixelflow apply --timings $W/$img.png $W/${img}_s.png -p "$SPEC" >> "$OUT/log.txt" 2>&1; kill $p
  echo "$img stream gpu peak_mib $(sort -n /tmp/m.txt | tail -1)" >> "$OUT/log.txt"
done
cat "$OUT/log.txt"
