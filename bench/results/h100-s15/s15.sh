#!/usr/bin/env bash
# Session 15's device call (issue 20): tiled and streamed throughput against whole at 16384²
# and 20000² (in memory), then 12000x8000 and 20000x20000 PNGs through `apply` streamed,
# whole and on the CPU reference, with peak RSS (the CLI's --timings) and GPU memory (nvidia-smi).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
B=/tmp/b; W=/tmp/w; mkdir -p $B $W
for x in pixelflow tile_throughput tile_throughput_s14 big_image; do xz -dc .peers/s15/$x.xz > $B/$x; done; chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
nproc | tee -a "$OUT/gpu.txt"
$B/pixelflow info 2>&1 | grep -i -E "adapter|binding|buffer" | head -8 | tee -a "$OUT/gpu.txt"
SPEC="gaussian_blur(sigma=8) | sobel_edge_detection"
echo "== tiles and bands in memory"
for a in "16384 4096 3 1024" "16384 4096 8 2048" "16384 8192 4 4096" "16384 16384 2 8192" "20000 4096 4 1024"; do
  set -- $a
  timeout 120 $B/tile_throughput $1 $2 "$SPEC" $3 $4 2>&1 | tee -a "$OUT/tiles.json"
done
echo "== session 14's binary, same call (before the staging-pool poll)"
timeout 120 $B/tile_throughput_s14 16384 4096 "$SPEC" 3 2>&1 | tee -a "$OUT/tiles_s14_binary.json"
echo "== big PNGs"
$B/big_image make 12000 8000 $W/b12k.png
$B/big_image make 20000 20000 $W/b20k.png
ls -la $W | tee -a "$OUT/files.txt"
gpumem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > "$OUT/gpumem_$1.txt" & echo $!; }
for img in b12k b20k; do
  base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits); echo "$img baseline_mib $base" | tee -a "$OUT/gpumem_baseline.txt"
  p=$(gpumem ${img}_stream); timeout 150 $B/pixelflow apply --timings $W/$img.png $W/${img}_gpu.png -p "$SPEC" > "$OUT/${img}_stream.log" 2>&1; kill $p
  p=$(gpumem ${img}_whole); PIXELFLOW_STREAM=0 timeout 150 $B/pixelflow apply --timings $W/$img.png $W/${img}_whole.png -p "$SPEC" > "$OUT/${img}_whole.log" 2>&1; kill $p
  timeout 200 $B/pixelflow --cpu apply --timings $W/$img.png $W/${img}_cpu.png -p "$SPEC" > "$OUT/${img}_cpu.log" 2>&1
  $B/big_image compare $W/${img}_gpu.png $W/${img}_cpu.png > "$OUT/${img}_gpu_vs_cpu.json" 2>&1
  $B/big_image compare $W/${img}_gpu.png $W/${img}_whole.png > "$OUT/${img}_stream_vs_whole.json" 2>&1
  tail -3 "$OUT/${img}_stream.log" "$OUT/${img}_whole.log" "$OUT/${img}_cpu.log"; cat "$OUT/${img}_gpu_vs_cpu.json" "$OUT/${img}_stream_vs_whole.json"
  for f in "$OUT"/gpumem_${img}_*.txt; do echo "$f peak_mib $(sort -n $f | tail -1)"; done | tee -a "$OUT/gpumem_peaks.txt"
done
echo done
