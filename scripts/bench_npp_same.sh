#!/usr/bin/env bash
# Issue 32's race with NPP on the same pictures, in one call on a CUDA machine (H100/H200):
# texelflow's bench writes the inputs of the raced operations (random and photo-like, every
# buffer set) and times them; bench/peers/npp_same.cu reads those very files and times NPP;
# then the schedules in question one against another, and texelflow's paired cases again (the
# run-to-run spread within the call).
# Expects: the release binary (BIN, default target/release/texelflow); on the lent machines the
# Vulkan loader debs in .gl/ (see BENCHMARKS.md). Writes under OUT (default out/bench/<UTC time>).
#   [OUT=dir] [BIN=path] [SIZE=3840x2160] [SCHEDULES="resize=general_tile histogram=u8q32 ..."]
#   [FILTERS=histogram,...: the paired runs of these only] [SHARED=1: also every other shared
#   operation against the NPP peers] scripts/bench_npp_same.sh
#   scripts/npp_report.py OUT   (the side-by-side table of BENCHMARKS.md)
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
# the GPU's clocks are often down for the first seconds of a call (seen: the copy kernel at 2.4x
# its time): a few seconds of copies first, not recorded
"$BIN" --backend vulkan bench --size "$SIZE" --filters copy --repeat 10 >/dev/null 2>&1
IN=/tmp/npp_same_inputs
mkdir -p "$IN"
# texelflow first: it writes the inputs; then NPP on them; each PASSES times (default 2), the
# report takes each side's best pass (the clocks are down in some passes: see npp_report.py)
ONLY=""
[ -n "${FILTERS:-}" ] && ONLY="--filters $FILTERS"
if command -v nvcc >/dev/null; then
  nvcc -O2 -std=c++17 -arch=sm_90 bench/peers/npp_same.cu -o /tmp/npp_same -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc 2>&1 | grep -v warning | tail -3
fi
for pass in $(seq 1 "${PASSES:-2}"); do
  W_IN=""
  [ "$pass" = 1 ] && W_IN="--write-inputs $IN"
  "$BIN" --backend vulkan bench --npp-paired --size "$SIZE" $ONLY $W_IN --json "$OUT/texelflow_paired_$pass.json" 2>&1 | tee "$OUT/texelflow_paired_$pass.txt"
  [ -x /tmp/npp_same ] && /tmp/npp_same "$IN" "$W" "$H" 30 2>&1 | tee "$OUT/npp_same_$pass.tsv"
done
# the schedules in question, each against the default in the same process
for s in ${SCHEDULES:-resize=general_tile resize=general_rows resize=quads histogram=u8q32 canny_edge_detection=unionfind}; do
  f="${s%%=*}"
  "$BIN" --backend vulkan bench --npp-paired --size "$SIZE" --filters "$f" --schedule "$s" 2>&1 | sed "s/^/$s /" | tee -a "$OUT/schedules.txt"
done
# SHARED=1: every other operation both have, texelflow's default cases against the NPP peers on
# their own pictures (shared/peers/npp_peer.cu copied to .peers/, bench/peers/npp_color.cu)
if [ -n "${SHARED:-}" ]; then
  "$BIN" --backend vulkan bench --size "$SIZE" --filters copy,gaussian_blur,box_blur,dilation,median_3x3,median_5x5,bilateral,canny_edge_detection,harris_corner_detection,resize,sobel_edge_detection,histogram,reduce,to_gray,gamma,levels,tone_curve,color_matrix,hsb,hue,sepia,rgb,brightness,multiply_blend,alpha_blend,convolution_3x3,laplacian,sharpen --json "$OUT/texelflow_shared.json" 2>&1 | tee "$OUT/texelflow_shared.txt"
  if command -v nvcc >/dev/null; then
    for peer in .peers/npp_peer.cu bench/peers/npp_color.cu; do
      [ -f "$peer" ] || continue
      name=$(basename "$peer" .cu)
      nvcc -O2 -std=c++17 -arch=sm_90 "$peer" -o "/tmp/$name" -lnppif -lnppig -lnppist -lnppim -lnppial -lnppicc -lnppidei -lnppisu -lnppc 2>&1 | grep -v warning | tail -3
      [ -x "/tmp/$name" ] && "/tmp/$name" "$W" "$H" 30 2>&1 | tee "$OUT/$name.tsv"
    done
  fi
fi
# the results as one archive beside the table (the lent machines return a few files only)
python3 scripts/npp_report.py "$OUT" > "$OUT/table.md" 2>&1
cat "$OUT/table.md"
# (archived outside the folder: tar refuses a folder that changes while it reads it)
if tar czf /tmp/npp_same_raw.tgz -C "$OUT" --exclude ./table.md --exclude ./log.txt .; then
  find "$OUT" -type f ! -name table.md ! -name log.txt -delete
  mv /tmp/npp_same_raw.tgz "$OUT/raw.tgz"
fi
true
