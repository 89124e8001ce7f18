#!/usr/bin/env bash
# Session 16's device call (issue 20, geometry through tiles): in-memory throughput of resizes
# tiled and streamed against whole (bit-identity on NVIDIA included), then a 20000x20000 PNG
# through a blur and a resize by apply, streamed, whole and on the CPU reference.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; W=/tmp/w; mkdir -p $B $W
for x in pixelflow tile_throughput big_image; do xz -dc .peers/s16/$x.xz > $B/$x; done; chmod +x $B/*
L="$OUT/log.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$L"
echo "== in memory: side tile spec in_flight band" >> "$L"
for a in "16384|4096|gaussian_blur(sigma=8) | resize(scale=0.5) | sobel_edge_detection|3|1024" "16384|4096|resize(scale=0.25, method=area)|3|256" "16384|4096|resize(scale=0.5)|3|512" "8192|4096|resize(scale=2, method=bicubic)|3|1024" "16384|4096|gaussian_blur(sigma=8) | sobel_edge_detection|3|1024"; do
  IFS='|' read -r side tile spec fl band <<< "$a"
  timeout 150 $B/tile_throughput "$side" "$tile" "$spec" "$fl" "$band" >> "$L" 2>&1
done
$B/big_image make 20000 20000 $W/b20k.png
SPEC="gaussian_blur(sigma=8) | resize(scale=0.5, method=bicubic)"
for rep in 1 2; do
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > /tmp/m_s.txt & p=$!
  timeout 150 $B/pixelflow apply --timings $W/b20k.png $W/s.png -p "$SPEC" >> "$L" 2>&1; kill $p
  echo "stream gpu peak_mib $(sort -n /tmp/m_s.txt | tail -1)" >> "$L"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > /tmp/m_w.txt & p=$!
  PIXELFLOW_STREAM=0 timeout 150 $B/pixelflow apply --timings $W/b20k.png $W/w.png -p "$SPEC" >> "$L" 2>&1; kill $p
  echo "whole gpu peak_mib $(sort -n /tmp/m_w.txt | tail -1)" >> "$L"
done
timeout 240 $B/pixelflow --cpu apply --timings $W/b20k.png $W/c.png -p "$SPEC" >> "$L" 2>&1
echo "stream vs whole:" >> "$L"; $B/big_image compare $W/s.png $W/w.png >> "$L" 2>&1
echo "stream vs cpu:" >> "$L"; $B/big_image compare $W/s.png $W/c.png >> "$L" 2>&1
cat "$L"
