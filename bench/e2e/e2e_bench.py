#!/usr/bin/env python3
"""End-to-end batch throughput (issue 13): photo-like 3840x2160 JPEGs through
gaussian_blur(sigma=2) | sobel_edge_detection to JPEG, texelflow's batch mode against an OpenCV
script using every core (a multiprocessing Pool doing decode -> blur -> Sobel -> encode), and
texelflow's decode + encode alone. Run on the GPU machine:

    python3 bench/e2e/e2e_bench.py target/release/texelflow [N]

Prints one table; wall times of whole commands (start-up included), peak RSS of each. The table also
goes to `e2e.txt` in the run's folder: `$OUT`, else `out/bench/$RUN/` (git-ignored; RUN defaults to
the UTC date and time). KEEP=1 keeps the generated JPEGs (for bench/e2e/scaling.sh).
"""
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

BIN = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 64
W, H = 3840, 2160
ROOT = tempfile.mkdtemp(prefix="texelflow-e2e-")
SRC = os.path.join(ROOT, "src")


def make(i):
    # smooth gradients, shapes and sensor-like noise: compresses like a photo (~2-4 MB at q90)
    rng = np.random.default_rng(i)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    img = np.stack([(x / W * 200 + 30 * np.sin(y / 97 + i)), (y / H * 180 + 40 * np.cos(x / 131)), (120 + 60 * np.sin((x + y) / 211 + i))], -1)
    for _ in range(12):
        cx, cy, r = rng.integers(0, W), rng.integers(0, H), rng.integers(40, 400)
        cv2.circle(img, (int(cx), int(cy)), int(r), [float(v) for v in rng.integers(0, 255, 3)], -1)
    img += rng.normal(0, 6, img.shape)
    cv2.imwrite(os.path.join(SRC, f"p{i:03}.jpg"), np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 90])


def cv_job(args):
    src, dst = args
    img = cv2.imread(src)
    b = cv2.GaussianBlur(img, (13, 13), 2, borderType=cv2.BORDER_REPLICATE)
    g = cv2.cvtColor(b, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255
    sx = cv2.Sobel(g, cv2.CV_32F, 1, 0, borderType=cv2.BORDER_REPLICATE)
    sy = cv2.Sobel(g, cv2.CV_32F, 0, 1, borderType=cv2.BORDER_REPLICATE)
    m = np.clip(cv2.magnitude(sx, sy) * 255, 0, 255).astype(np.uint8)
    cv2.imwrite(dst, m, [cv2.IMWRITE_JPEG_QUALITY, 90])


def cv_codec_job(args):
    """Decode and encode alone (the output as grey, like the pipeline's)."""
    src, dst = args
    img = cv2.imread(src)
    cv2.imwrite(dst, img[:, :, 1], [cv2.IMWRITE_JPEG_QUALITY, 90])


def timed(cmd):
    """Wall seconds and peak RSS (MB) of one command (wait4 gives that child's own usage)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        print("FAILED:", " ".join(cmd), p.stderr.read().decode()[-500:])
    return wall, usage.ru_maxrss / 1024


def main():
    os.makedirs(SRC)
    with mp.Pool() as p:
        p.map(make, range(N))
    files = sorted(os.listdir(SRC))
    mb = sum(os.path.getsize(os.path.join(SRC, f)) for f in files) / 1e6
    cores = os.cpu_count()
    rows = []
    one = os.path.join(SRC, files[0])
    # the first GPU run on a fresh machine: the driver compiles the kernels (cached on disk after)
    cold, _ = timed([BIN, "apply", one, os.path.join(ROOT, "one.jpg"), "-p", "gaussian_blur(sigma=2) | sobel_edge_detection"])
    out = os.path.join(ROOT, "cv")
    os.makedirs(out)
    t = time.perf_counter()
    with mp.Pool(cores) as p:
        p.map(cv_job, [(os.path.join(SRC, f), os.path.join(out, f)) for f in files])
    rows.append((f"OpenCV, Pool({cores})", time.perf_counter() - t, float("nan")))
    t = time.perf_counter()
    with mp.Pool(cores) as p:
        p.map(cv_codec_job, [(os.path.join(SRC, f), os.path.join(out, f)) for f in files])
    rows.append((f"OpenCV decode + grey encode only, Pool({cores})", time.perf_counter() - t, float("nan")))
    spec = "gaussian_blur(sigma=2) | sobel_edge_detection"
    for label, extra, pipe in [
        ("texelflow batch (GPU)", [], spec),
        ("texelflow decode + grey encode only (--cpu, to_gray)", ["--cpu"], "to_gray"),
        ("texelflow decode + colour encode only (--cpu, brightness(0))", ["--cpu"], "brightness(0)"),
    ]:
        o = os.path.join(ROOT, label.split()[1])
        shutil.rmtree(o, ignore_errors=True)
        wall, rss = timed([BIN] + extra + ["apply", SRC, "--out-dir", o, "--name", "{stem}.jpg", "-p", pipe])
        rows.append((label, wall, rss))
    # where each image's time goes, summed over the workers (the batch's --timings total line)
    o = os.path.join(ROOT, "timed")
    p = subprocess.run([BIN, "apply", SRC, "--out-dir", o, "--name", "{stem}.jpg", "--timings", "-p", spec], capture_output=True, text=True)
    breakdown = [l for l in p.stderr.splitlines() if l.startswith("total") or l.startswith("file")]
    single, _ = timed([BIN, "apply", one, os.path.join(ROOT, "one.jpg"), "-p", spec])
    lines = [f"{N} JPEGs {W}x{H}, {mb:.0f} MB, {cores} cores", f"{'run':58} {'wall s':>8} {'images/s':>9} {'peak RSS MB':>12}"]
    for label, wall, rss in rows:
        lines.append(f"{label:58} {wall:8.2f} {N / wall:9.1f} {rss:12.0f}")
    lines.append(f"{'single apply, one JPEG, first GPU run on the machine':58} {cold:8.2f}")
    lines.append(f"{'single apply, one JPEG (wall, start-up included)':58} {single:8.2f}")
    lines += breakdown
    print("\n".join(lines))
    out_dir = os.environ.get("OUT") or os.path.join("out", "bench", os.environ.get("RUN") or time.strftime("%Y%m%d-%H%M%S", time.gmtime()))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "e2e.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("written:", os.path.join(out_dir, "e2e.txt"))
    if os.environ.get("KEEP"):
        print("kept:", SRC)
    else:
        shutil.rmtree(ROOT, ignore_errors=True)


main()
