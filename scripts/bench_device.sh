#!/usr/bin/env bash
# Reproduces BENCHMARKS.md on a CUDA machine with an NVIDIA GPU (H100/H200):
# texelflow's GPU benchmark and the peers (NVIDIA NPP, PyTorch/kornia/CuPy/OpenCV) in one go.
# Expects: target/release/texelflow built beforehand; the peers in .peers/ (copied from
# shared/peers); on the lent machines also the Vulkan loader debs in .gl/ (see BENCHMARKS.md).
# Writes everything under out/bench/<run>/ (git-ignored): RUN names the run (default: the UTC date and
# time), OUT=DIR writes to DIR instead (on the lent machines $OUT is set: the results come back with the call).
#   [RUN=h200-today] [SIZE=3840x2160] [BENCH_ARGS=--experiments] [SKIP_PY=1] scripts/bench_device.sh
#   scripts/bench_report.py out/bench/h200-today [docs/bench_chart.png]
set -u
RUN="${RUN:-$(date -u +%Y%m%d-%H%M%S)}"
OUT="${OUT:-out/bench/$RUN}"
mkdir -p "$OUT"
echo "writing under $OUT"
SIZE="${SIZE:-3840x2160}"
W="${SIZE%x*}"; H="${SIZE#*x}"
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
# SM clock, sampled through the whole call (the bench's spin keeps it up during timing)
(nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv,noheader -lms 500 > "$OUT/clocks.csv" 2>/dev/null &)
./target/release/texelflow --backend vulkan info 2>&1 | tee "$OUT/info.txt"
./target/release/texelflow --backend vulkan apply --overwrite assets/sample.png /tmp/sample_edges.png --pipeline "gaussian_blur(sigma=2) | sobel_edge_detection" --timings 2>&1 | tail -5
./target/release/texelflow --backend vulkan bench --size "$SIZE" --json "$OUT/texelflow.json" --shader-stats "$OUT/shader_stats" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/texelflow.txt"
if command -v nvcc >/dev/null && [ -f .peers/npp_peer.cu ]; then
  nvcc -O2 -std=c++17 -arch=sm_90 .peers/npp_peer.cu -o /tmp/npp_peer -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc 2>&1 | tail -3
  /tmp/npp_peer "$W" "$H" 30 2>&1 | tee "$OUT/npp.tsv"
fi
if command -v nvcc >/dev/null && [ -f bench/peers/npp_color.cu ]; then
  nvcc -O2 -std=c++17 -arch=sm_90 bench/peers/npp_color.cu -o /tmp/npp_color -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc 2>&1 | grep -v warning | tail -5
  [ -x /tmp/npp_color ] && /tmp/npp_color "$W" "$H" 30 2>&1 | tee "$OUT/npp_color.tsv"
fi
if [ -f .peers/py_peers.py ] && [ -z "${SKIP_PY:-}" ]; then
  PYTHONUNBUFFERED=1 timeout ${PY_TIMEOUT:-240} python3 .peers/py_peers.py "$W" "$H" 2>&1 | tee "$OUT/py_peers.tsv"
fi
# texelflow again, last: run-to-run spread in the same call, and the same kernels at 4x the
# pixels (a fixed per-dispatch cost shows as a ratio to copy that changes with size)
./target/release/texelflow --backend vulkan bench --size "$SIZE" --filters copy,gaussian_blur,box_blur,dilation,histogram,reduce,sobel_edge_detection 2>&1 | tee "$OUT/texelflow_repeat.txt"
./target/release/texelflow --backend vulkan bench --size "$((W * 2))x$((H * 2))" --filters copy,brightness,reduce,histogram 2>&1 | tee "$OUT/texelflow_8k.txt"
# Gaussian's half schedule, weights compiled in (the default) against read from the uniform (half_uw),
# alternating in one process, twice each
for v in default half_uw default half_uw; do
  s=""; [ "$v" != default ] && s="--schedule gaussian_blur=$v"
  ./target/release/texelflow --backend vulkan bench --size "$SIZE" --filters copy,gaussian_blur $s 2>&1 | sed "s/^/$v /" | tee -a "$OUT/gauss_weights.txt"
done
pkill -f "nvidia-smi --query" 2>/dev/null
true
