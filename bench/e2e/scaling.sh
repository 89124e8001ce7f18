#!/usr/bin/env bash
# Batch throughput against --jobs (GPU pipeline, and decode + grey encode alone: the CPU path with to_gray), on
# the JPEGs e2e_bench.py makes (KEEP=1 keeps them; it prints where); prints wall seconds per run and writes them
# to scaling.txt in the run's folder: $OUT, else out/bench/$RUN/ (git-ignored; RUN defaults to the UTC date and
# time). Usage: [RUN=name] bench/e2e/scaling.sh BIN DIR
BIN=$1; DIR=$2
RUN="${RUN:-$(date -u +%Y%m%d-%H%M%S)}"
OUT="${OUT:-out/bench/$RUN}"
mkdir -p "$OUT"
exec > >(tee "$OUT/scaling.txt")
for j in 1 4 8 16 32; do
  for mode in gpu cpu; do
    out=$(mktemp -d)
    if [ $mode = gpu ]; then args=(-p "gaussian_blur(sigma=2) | sobel_edge_detection"); else args=(--cpu -p "to_gray"); fi
    s=$(date +%s.%N)
    if [ $mode = gpu ]; then "$BIN" apply "$DIR" --out-dir "$out" --name "{stem}.jpg" --jobs $j "${args[@]}" 2>/dev/null; else "$BIN" --cpu apply "$DIR" --out-dir "$out" --name "{stem}.jpg" --jobs $j -p "to_gray" 2>/dev/null; fi
    e=$(date +%s.%N)
    echo "jobs $j $mode $(echo "$e $s" | awk '{printf "%.2f", $1 - $2}') s"
    rm -rf "$out"
  done
done
