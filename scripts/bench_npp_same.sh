#!/usr/bin/env bash
# Issue 32's race with NPP on the same pictures, in one call on a CUDA machine (H100/H200):
# texelflow's bench writes the inputs of the raced operations (random and photo-like, every
# buffer set) and times them; bench/peers/npp_same.cu reads those very files and times NPP;
# then the schedules in question one against another, and texelflow's paired cases again (the
# run-to-run spread within the call).
# Expects: the release binary (BIN, default target/release/texelflow); on the lent machines the
# Vulkan loader debs in .gl/ (see BENCHMARKS.md). Writes under OUT (default out/bench/<UTC time>).
#   [OUT=dir] [BIN=path] [SIZE=3840x2160] [SCHEDULES="resize=general_tile histogram=u8q32 ..."]
#   [FILTERS=histogram,...: the paired runs of these only] scripts/bench_npp_same.sh
set -u
OUT="${OUT:-out/bench/npp-same-$(date -u +%Y%m%d-%H%M%S)}"
BIN="${BIN:-./target/release/texelflow}"
SIZE="${SIZE:-3840x2160}"
W="${SIZE%x*}"; H="${SIZE#*x}"
mkdir -p "$OUT"
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
IN=/tmp/npp_same_inputs
mkdir -p "$IN"
# texelflow first: it writes the inputs
ONLY=""
[ -n "${FILTERS:-}" ] && ONLY="--filters $FILTERS"
"$BIN" --backend vulkan bench --npp-paired --size "$SIZE" $ONLY --write-inputs "$IN" --json "$OUT/texelflow_paired.json" 2>&1 | tee "$OUT/texelflow_paired.txt"
if command -v nvcc >/dev/null; then
  nvcc -O2 -std=c++17 -arch=sm_90 bench/peers/npp_same.cu -o /tmp/npp_same -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc 2>&1 | grep -v warning | tail -3
  /tmp/npp_same "$IN" "$W" "$H" 30 2>&1 | tee "$OUT/npp_same.tsv"
fi
# the schedules in question, each against the default in the same process
for s in ${SCHEDULES:-resize=general_tile resize=general_rows resize=quads histogram=u8q32 canny_edge_detection=unionfind}; do
  f="${s%%=*}"
  "$BIN" --backend vulkan bench --npp-paired --size "$SIZE" --filters "$f" --schedule "$s" 2>&1 | sed "s/^/$s /" | tee -a "$OUT/schedules.txt"
done
"$BIN" --backend vulkan bench --npp-paired --size "$SIZE" $ONLY 2>&1 | tee "$OUT/texelflow_paired_repeat.txt"
true
