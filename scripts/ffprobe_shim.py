#!/usr/bin/env python3
"""A stand-in for `ffprobe -print_format json -show_format -show_streams FILE` where only an
ffmpeg binary is at hand (the GPU machine, where ffmpeg travels as one static binary for the
video benchmark, scripts/bench_video.sh): reads what `ffmpeg -i FILE` prints and answers with
the fields texelflow's video path reads (size, rates, duration, pixel format, colour tags,
audio codecs). Not for general use: ffprobe itself is the real component."""
import json
import re
import subprocess
import sys

path = sys.argv[-1]
err = subprocess.run(["ffmpeg", "-hide_banner", "-i", path], capture_output=True, text=True).stderr
if "Invalid data" in err or "No such file" in err:
    print(err.strip().splitlines()[-1], file=sys.stderr)
    sys.exit(1)
streams = []
duration = None
m = re.search(r"Duration: (\d+):(\d+):([\d.]+)", err)
if m:
    duration = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
for line in err.splitlines():
    v = re.search(r"Stream #\d+:\d+.*?: Video: (\w+).*?, (\w+)(?:\(([^)]*)\))?, (\d+)x(\d+).*?, ([\d.]+) fps", line)
    if v:
        tags = (v.group(3) or "").split(",") + [""] * 3
        fps = float(v.group(6))
        rate = f"{round(fps * 1001)}/1001" if abs(fps * 1001 - round(fps) * 1000) < 1 and fps != round(fps) else f"{round(fps)}/1"
        streams.append({"codec_type": "video", "codec_name": v.group(1), "pix_fmt": v.group(2), "width": int(v.group(4)), "height": int(v.group(5)),
                        "r_frame_rate": rate, "avg_frame_rate": rate, "color_range": tags[0] if tags[0] in ("tv", "pc") else "",
                        "color_space": next((t for t in tags if t in ("bt709", "smpte170m", "bt470bg")), ""), "disposition": {"attached_pic": 0}})
        continue
    a = re.search(r"Stream #\d+:\d+.*?: Audio: (\w+)", line)
    if a:
        streams.append({"codec_type": "audio", "codec_name": a.group(1)})
print(json.dumps({"streams": streams, "format": {"duration": str(duration) if duration is not None else None}}))
