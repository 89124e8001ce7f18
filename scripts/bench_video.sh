#!/usr/bin/env bash
# Issue 18's benchmark: `texelflow apply IN.mp4 OUT.mp4` (decode, GPU, encode: the whole user
# path) against ffmpeg decoding and encoding the same clip with the same codec settings and no
# filter, for a 1080p and a 4K clip. Prints one line per run and a median summary:
#   clip  case  seconds  fps
# Where ffmpeg is not installed (the lent GPU machines), a static ffmpeg travels xz-compressed as
# .peers/ffmpeg.xz and `ffprobe` is stood in for by scripts/ffprobe_shim.py (reads `ffmpeg -i`).
# Expects target/release/texelflow (or .peers/texelflow.xz). Writes under out/bench/<run>/ (git-ignored):
# RUN names the run (default: the UTC date and time), OUT=DIR writes to DIR instead.
#   [RUN=video-today] [SECS=6] [REPS=3] [P=path/to/texelflow] scripts/bench_video.sh
set -u
RUN="${RUN:-$(date -u +%Y%m%d-%H%M%S)}"
OUT="${OUT:-out/bench/$RUN}"
mkdir -p "$OUT"
echo "writing under $OUT"
SECS="${SECS:-6}"
REPS="${REPS:-3}"
BIN=/tmp/texelflow-video-bin
mkdir -p "$BIN"
if ! command -v ffmpeg >/dev/null && [ -f .peers/ffmpeg.xz ]; then
  xz -dc .peers/ffmpeg.xz > "$BIN/ffmpeg" && chmod +x "$BIN/ffmpeg"
fi
if ! command -v ffprobe >/dev/null; then
  cp scripts/ffprobe_shim.py "$BIN/ffprobe" && chmod +x "$BIN/ffprobe"
fi
export PATH="$BIN:$PATH"
P="${P:-./target/release/texelflow}"
if [ ! -x "$P" ] && [ -f .peers/texelflow.xz ]; then
  xz -dc .peers/texelflow.xz > "$BIN/texelflow" && chmod +x "$BIN/texelflow"
  P="$BIN/texelflow"
fi
ffmpeg -version | head -1 | tee "$OUT/video_ffmpeg.txt"
nproc | sed 's/^/cores: /' | tee -a "$OUT/video_ffmpeg.txt"
now() { date +%s.%N; }
log="$OUT/video.tsv"
: > "$log"
for size in 1920x1080 3840x2160; do
  clip="/tmp/clip_$size.mp4"
  # x264 (medium, crf 23) with AAC audio: the common camera/phone case
  ffmpeg -hide_banner -v error -y -f lavfi -i "testsrc2=size=$size:rate=30" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t "$SECS" -c:v libx264 -pix_fmt yuv420p -c:a aac "$clip"
  frames=$((SECS * 30))
  for rep in $(seq "$REPS"); do
    run() { # case, command...
      local name="$1"; shift
      local t0; t0=$(now)
      if "$@" >/dev/null 2>"$OUT/video_err.txt"; then
        local t1; t1=$(now)
        awk -v s="$size" -v n="$name" -v a="$t0" -v b="$t1" -v f="$frames" 'BEGIN { printf "%s\t%s\t%.3f\t%.1f\n", s, n, b - a, f / (b - a) }' | tee -a "$log"
      else
        printf '%s\t%s\tFAILED: %s\n' "$size" "$name" "$(tail -1 "$OUT/video_err.txt")" | tee -a "$log"
      fi
    }
    run decode_only ffmpeg -hide_banner -v error -i "$clip" -f null -
    run ffmpeg_transcode ffmpeg -hide_banner -v error -y -i "$clip" -c:v libx264 -pix_fmt yuv420p -c:a copy /tmp/base.mp4
    run blur_sobel "$P" --backend vulkan apply --overwrite "$clip" /tmp/pf_blur_sobel.mp4 -p "gaussian_blur(sigma=2) | sobel_edge_detection"
    run brightness "$P" --backend vulkan apply --overwrite "$clip" /tmp/pf_brightness.mp4 -p "brightness(0.02)"
    run low_pass_sobel "$P" --backend vulkan apply --overwrite "$clip" /tmp/pf_low_pass.mp4 -p "low_pass(strength=0.5) | sobel_edge_detection"
    run motion_data "$P" --backend vulkan apply "$clip" --data /tmp/motion.jsonl -p "motion_detector"
  done
done
# medians per (clip, case) and the ratio to ffmpeg's transcode
python3 - "$log" <<'PY' | tee "$OUT/video_summary.txt"
import statistics, sys, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) == 4:
        t[(f[0], f[1])].append(float(f[2]))
for (size, case), v in sorted(t.items()):
    base = statistics.median(t.get((size, "ffmpeg_transcode"), [float("nan")]))
    m = statistics.median(v)
    print(f"{size}\t{case}\tmedian {m:.3f} s\t{m / base:.3f}x ffmpeg transcode\t(runs: {', '.join(f'{x:.3f}' for x in v)})")
PY
