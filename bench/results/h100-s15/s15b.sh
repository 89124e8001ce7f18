#!/usr/bin/env bash
# Session 15's second device call: tiles pasted in parallel (tiled and streamed throughput
# against whole, 16384² and 20000²), and the 20000x20000 PNG's whole-path log that the first
# call could not bring back; outputs kept to a few files.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; W=/tmp/w; mkdir -p $B $W
for x in pixelflow tile_throughput tile_throughput_s14 big_image; do xz -dc .peers/s15/$x.xz > $B/$x; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/log.txt"
SPEC="gaussian_blur(sigma=8) | sobel_edge_detection"
for a in "16384 4096 3 1024" "16384 4096 8 1024" "16384 2048 8 2048" "16384 8192 4 2048" "20000 4096 4 1024" "16384 4096 3 1024"; do
  set -- $a
  timeout 120 $B/tile_throughput $1 $2 "$SPEC" $3 $4 2>&1 | tee -a "$OUT/tiles.json"
done
timeout 120 $B/tile_throughput_s14 16384 4096 "$SPEC" 3 2>&1 | tee -a "$OUT/tiles.json"
$B/big_image make 20000 20000 $W/b20k.png
for rep in 1 2; do
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > /tmp/m_s.txt & p=$!
  timeout 150 $B/pixelflow apply --timings $W/b20k.png $W/s.png -p "$SPEC" >> "$OUT/log.txt" 2>&1; kill $p
  echo "stream gpu peak_mib $(sort -n /tmp/m_s.txt | tail -1)" >> "$OUT/log.txt"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > /tmp/m_w.txt & p=$!
  PIXELFLOW_STREAM=0 timeout 150 $B/pixelflow apply --timings $W/b20k.png $W/w.png -p "$SPEC" >> "$OUT/log.txt" 2>&1; kill $p
  echo "whole gpu peak_mib $(sort -n /tmp/m_w.txt | tail -1)" >> "$OUT/log.txt"
done
$B/big_image compare $W/s.png $W/w.png >> "$OUT/log.txt" 2>&1
cat "$OUT/log.txt"
