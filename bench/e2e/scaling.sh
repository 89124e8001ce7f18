#!/usr/bin/env bash
# Batch throughput against --jobs (GPU pipeline, and decode + grey encode alone: the CPU path with to_gray), on
# the JPEGs e2e_bench.py makes; prints wall seconds per run. Usage: scaling.sh BIN DIR
BIN=$1; DIR=$2
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
