#!/usr/bin/env bash
# Issue 20's benchmark, huge images: BENCHMARKS.md's "Huge images through apply" and "Tiles and bands
# in memory" tables, in one go.
# - In memory: examples/tile_throughput (one image, whole against square tiles and against streamed
#   bands, upload, kernels and read-back included; one JSON line per case in tiles.json).
# - Through `texelflow apply`: photo-like PNGs made by examples/big_image, streamed (the default from
#   64 MP), whole (TEXELFLOW_STREAM=0) and on the CPU reference (--cpu), each with --timings (wall and
#   peak RSS) and, where nvidia-smi exists, the peak GPU memory sampled every 50 ms; then the outputs
#   compared by big_image (streamed against whole, and against the CPU reference).
# Expects: cargo build --release -p texelflow-cli
#          cargo build --release -p texelflow --example tile_throughput --example big_image
# (P=path/to/texelflow and EX=path/to/examples point elsewhere; on the lent machines also the Vulkan
# loader debs in .gl/). Writes under out/bench/<run>/ (git-ignored): RUN names the run (default: the
# UTC date and time), OUT=DIR writes to DIR instead. SIZES="12000x8000 20000x20000" (the default)
# picks the PNGs; SKIP_TILES=1, SKIP_APPLY=1, SKIP_CPU=1 leave parts out (the CPU reference of a
# 20000x20000 image takes minutes on a few cores). WORK=DIR holds the images (default /tmp/texelflow-big).
#   [RUN=h100-big] scripts/bench_big.sh
set -u
RUN="${RUN:-$(date -u +%Y%m%d-%H%M%S)}"
OUT="${OUT:-out/bench/$RUN}"
mkdir -p "$OUT"
echo "writing under $OUT"
P="${P:-./target/release/texelflow}"
EX="${EX:-./target/release/examples}"
WORK="${WORK:-/tmp/texelflow-big}"
mkdir -p "$WORK"
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
{
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  fi
  echo "cores: $(nproc)"
  "$P" info
} > "$OUT/machine.txt" 2>&1

BLUR_SOBEL="gaussian_blur(sigma=8) | sobel_edge_detection"
BLUR_RESIZE="gaussian_blur(sigma=8) | resize(scale=0.5, method=bicubic)"

# side, tile, spec, tiles in flight, band rows: passed as separate words (a spec holds '|')
tiles() {
  echo "tile_throughput $1 $2 \"$3\" $4 $5"
  timeout "${TILE_TIMEOUT:-300}" "$EX/tile_throughput" "$1" "$2" "$3" "$4" "$5" >> "$OUT/tiles.json" 2>> "$OUT/tiles_err.txt"
}
if [ -z "${SKIP_TILES:-}" ]; then
  tiles 16384 4096 "$BLUR_SOBEL" 3 1024
  tiles 16384 4096 "$BLUR_SOBEL" 3 2048
  tiles 16384 2048 "$BLUR_SOBEL" 8 1024
  tiles 20000 4096 "$BLUR_SOBEL" 4 1024
  tiles 16384 4096 "gaussian_blur(sigma=8) | resize(scale=0.5) | sobel_edge_detection" 3 512
  tiles 16384 4096 "gaussian_blur(sigma=8) | resize(scale=0.5) | sobel_edge_detection" 3 1024
  tiles 16384 4096 "gaussian_blur(sigma=8)" 3 1024
  tiles 16384 4096 "resize(scale=0.5)" 3 512
  tiles 16384 4096 "resize(scale=0.25, method=area)" 3 256
  tiles 8192 4096 "resize(scale=2, method=bicubic)" 3 1024
  tiles 16384 4096 "rotate90 | sobel_edge_detection" 3 1024
  tiles 16384 4096 "crop(x=0.1, y=0.1, width=0.8, height=0.8) | gaussian_blur(sigma=4)" 3 1024
fi

GPUMEM_PID=
gpumem_start() {
  GPUMEM_PID=
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > "$WORK/gpumem.txt" &
    GPUMEM_PID=$!
  fi
}
gpumem_stop() { # label
  if [ -n "$GPUMEM_PID" ]; then
    kill "$GPUMEM_PID" 2>/dev/null
    wait "$GPUMEM_PID" 2>/dev/null
    echo "$1 peak_mib $(sort -n "$WORK/gpumem.txt" | tail -1)" >> "$OUT/gpumem_peaks.txt"
  fi
}
apply_case() { # name, input, spec
  local name=$1 in=$2 spec=$3
  echo "apply $name: streamed, whole$([ -z "${SKIP_CPU:-}" ] && echo ", CPU reference")"
  gpumem_start
  timeout "${APPLY_TIMEOUT:-600}" "$P" apply --overwrite --timings "$in" "$WORK/${name}_stream.png" -p "$spec" > "$OUT/${name}_stream.log" 2>&1
  gpumem_stop "${name}_stream"
  gpumem_start
  TEXELFLOW_STREAM=0 timeout "${APPLY_TIMEOUT:-600}" "$P" apply --overwrite --timings "$in" "$WORK/${name}_whole.png" -p "$spec" > "$OUT/${name}_whole.log" 2>&1
  gpumem_stop "${name}_whole"
  "$EX/big_image" compare "$WORK/${name}_stream.png" "$WORK/${name}_whole.png" > "$OUT/${name}_stream_vs_whole.json" 2>&1
  if [ -z "${SKIP_CPU:-}" ]; then
    timeout "${CPU_TIMEOUT:-1800}" "$P" --cpu apply --overwrite --timings "$in" "$WORK/${name}_cpu.png" -p "$spec" > "$OUT/${name}_cpu.log" 2>&1
    "$EX/big_image" compare "$WORK/${name}_stream.png" "$WORK/${name}_cpu.png" > "$OUT/${name}_stream_vs_cpu.json" 2>&1
  fi
  rm -f "$WORK/${name}_stream.png" "$WORK/${name}_whole.png" "$WORK/${name}_cpu.png"
}
if [ -z "${SKIP_APPLY:-}" ]; then
  last=
  for size in ${SIZES:-12000x8000 20000x20000}; do
    img="$WORK/big_$size.png"
    [ -f "$img" ] || "$EX/big_image" make "${size%x*}" "${size#*x}" "$img"
    apply_case "${size}_blur_sobel" "$img" "$BLUR_SOBEL"
    last=$size
  done
  # the largest through a change of geometry (half the size out)
  if [ -n "$last" ]; then
    apply_case "${last}_blur_resize" "$WORK/big_$last.png" "$BLUR_RESIZE"
  fi
  # one line per run: wall (total, ms) and peak RSS, from --timings
  for f in "$OUT"/*.log; do
    [ -e "$f" ] || continue
    echo "$(basename "$f" .log): $(grep -o 'total [0-9.]*; peak RSS [0-9.]* [A-Za-z]*' "$f" | tail -1)"
  done | tee "$OUT/summary.txt"
fi
