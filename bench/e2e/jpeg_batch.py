#!/usr/bin/env python3
"""Issue 30's table in one run on the GPU machine: photo-like 3840x2160 JPEGs (quality 92)
through gaussian_blur(sigma=2) | sobel_edge_detection to JPEG q90, and 6000x4000 JPEGs to
500-pixel thumbnails, by texelflow's batch (default settings: the GPU-assisted decode; and
--host-decode), an OpenCV script on every core (multiprocessing.Pool), and what a PyTorch user
would write (torchvision: nvJPEG decode and encode on the GPU, the filters as convolutions).

    python3 bench/e2e/jpeg_batch.py BIN [N] [REPEATS]
    python3 bench/e2e/jpeg_batch.py --in-process SRC [REPEATS]

Whole commands are timed (start-up included), the median of REPEATS (3) with every run listed;
peak RSS from wait4. Then in this one process, both warm (one untimed pass each: the CUDA
context and nvJPEG, texelflow's device and kernels): texelflow's `Pipeline.apply_batch` on the
same files (default settings) against the torchvision loop, timed passes alternating (the
`--in-process` form runs only that, on the JPEGs of SRC; without torch and CUDA, texelflow's
rows alone, with a note). The table goes to stdout and to `jpeg_batch.txt` in $OUT (else
out/bench/<UTC time>/, git-ignored).
"""
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import cv2
except ImportError:  # only `--in-process` runs without OpenCV
    cv2 = None

# `--torch-once SRC OUT`: one whole torchvision command, timed by the main run
ONCE = len(sys.argv) > 3 and sys.argv[1] == "--torch-once"
# `--in-process SRC [REPEATS]`: the in-process comparison alone, on the JPEGs of SRC
INPROC = len(sys.argv) > 2 and sys.argv[1] == "--in-process"
BIN = "" if ONCE or INPROC else os.path.abspath(sys.argv[1])
N = int(sys.argv[2]) if len(sys.argv) > 2 and not (ONCE or INPROC) else 64
if INPROC:
    REPEATS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
else:
    REPEATS = int(sys.argv[3]) if len(sys.argv) > 3 and not ONCE else 3
SPEC = "gaussian_blur(sigma=2) | sobel_edge_detection"
ROOT = "" if ONCE else tempfile.mkdtemp(prefix="texelflow-jpeg30-")
SRC = os.path.join(ROOT, "src")
BIG = os.path.join(ROOT, "big")
CORES = os.cpu_count()


def photo(i, w, h):
    """Smooth gradients, shapes and sensor-like noise: compresses like a photo."""
    rng = np.random.default_rng(i)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.stack([(x / w * 200 + 30 * np.sin(y / 97 + i)), (y / h * 180 + 40 * np.cos(x / 131)), (120 + 60 * np.sin((x + y) / 211 + i))], -1)
    for _ in range(12):
        cx, cy, r = rng.integers(0, w), rng.integers(0, h), rng.integers(40, 400)
        cv2.circle(img, (int(cx), int(cy)), int(r), [float(v) for v in rng.integers(0, 255, 3)], -1)
    img += rng.normal(0, 6, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def make(i):
    cv2.imwrite(os.path.join(SRC, f"p{i:03}.jpg"), photo(i, 3840, 2160), [cv2.IMWRITE_JPEG_QUALITY, 92])


def make_big(i):
    cv2.imwrite(os.path.join(BIG, f"b{i:03}.jpg"), photo(i, 6000, 4000), [cv2.IMWRITE_JPEG_QUALITY, 92])


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
    src, dst = args
    img = cv2.imread(src)
    cv2.imwrite(dst, img[:, :, 1], [cv2.IMWRITE_JPEG_QUALITY, 90])


def cv_thumb_job(args):
    """OpenCV's own shrink-on-load (IMREAD_REDUCED_COLOR_8), then the exact area resize."""
    src, dst = args
    img = cv2.imread(src, cv2.IMREAD_REDUCED_COLOR_8)
    cv2.imwrite(dst, cv2.resize(img, (500, 333), interpolation=cv2.INTER_AREA), [cv2.IMWRITE_JPEG_QUALITY, 90])


def timed(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode()
    if status != 0:
        print("FAILED:", " ".join(cmd), err[-800:], flush=True)
    return wall, usage.ru_maxrss / 1024


def pool(job, src, files, out):
    os.makedirs(out, exist_ok=True)
    t = time.perf_counter()
    with mp.Pool(CORES) as p:
        p.map(job, [(os.path.join(src, f), os.path.join(out, f)) for f in files])
    return time.perf_counter() - t, float("nan")


def torch_job(files, out, decode_only=False, src=None):
    """What a PyTorch user would write: nvJPEG decode on the GPU (batches of 16), the blur and
    Sobel as convolutions, nvJPEG encode on the GPU, files read and written here."""
    import torch
    import torch.nn.functional as F
    from torchvision.io import decode_jpeg, encode_jpeg, read_file, write_file

    dev = "cuda"
    if cv2 is not None:
        gauss = cv2.getGaussianKernel(13, 2)[:, 0]
    else:  # OpenCV's kernel for sigma 2: exp(-x^2 / 8), normalised
        x = np.arange(13) - 6
        gauss = np.exp(-(x**2) / 8.0)
        gauss /= gauss.sum()
    k = torch.tensor(gauss, dtype=torch.float32, device=dev)
    kx = k.view(1, 1, 1, 13).repeat(3, 1, 1, 1)
    ky = k.view(1, 1, 13, 1).repeat(3, 1, 1, 1)
    sx = torch.tensor([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=torch.float32, device=dev).view(1, 1, 3, 3)
    sy = sx.transpose(2, 3).contiguous()
    if decode_only:
        datas = [read_file(os.path.join(SRC, f)) for f in files]
        torch.cuda.synchronize()
        t = time.perf_counter()
        for i in range(0, len(datas), 16):
            decode_jpeg(datas[i : i + 16], device=dev)
        torch.cuda.synchronize()
        return time.perf_counter() - t
    os.makedirs(out, exist_ok=True)
    t = time.perf_counter()
    for i in range(0, len(files), 16):
        chunk = files[i : i + 16]
        imgs = decode_jpeg([read_file(os.path.join(src or SRC, f)) for f in chunk], device=dev)
        x = torch.stack(imgs).float() / 255
        x = F.conv2d(F.pad(x, (6, 6, 0, 0), mode="replicate"), kx, groups=3)
        x = F.conv2d(F.pad(x, (0, 0, 6, 6), mode="replicate"), ky, groups=3)
        g = (0.299 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2]).unsqueeze(1)
        gp = F.pad(g, (1, 1, 1, 1), mode="replicate")
        m = torch.sqrt(F.conv2d(gp, sx) ** 2 + F.conv2d(gp, sy) ** 2)
        out8 = (m.clamp(0, 1) * 255).to(torch.uint8)
        try:
            encs = encode_jpeg(list(out8), quality=90)
        except Exception:
            encs = encode_jpeg(list(out8.expand(-1, 3, -1, -1).contiguous()), quality=90)
        for f, e in zip(chunk, encs):
            write_file(os.path.join(out, f), e.cpu())
    torch.cuda.synchronize()
    return time.perf_counter() - t


def in_process(src, repeats, out_root):
    """texelflow's in-process batch (`Pipeline.apply_batch`, default settings, JPEG out) against
    the torchvision loop, in this one process, both warmed by one untimed pass, timed passes
    alternating; files are read and written by both. Returns rows as `main`'s table has them."""
    import texelflow

    files = sorted(f for f in os.listdir(src) if f.lower().endswith((".jpg", ".jpeg")))
    n = len(files)
    pipe = texelflow.Pipeline(SPEC)
    print(f"in-process: texelflow on {pipe.device}, {n} files", flush=True)

    def tf_pass():
        o = os.path.join(out_root, "inproc_tf")
        shutil.rmtree(o, ignore_errors=True)
        t = time.perf_counter()
        r = pipe.apply_batch(src, o, name="{stem}.jpg")
        wall = time.perf_counter() - t
        if r["failed"] or r["done"] != n:
            print("texelflow apply_batch FAILED:", r["failed"][:3], flush=True)
        return wall

    torch_note = None
    try:
        import torch
        import torchvision  # noqa: F401

        if not torch.cuda.is_available():
            torch_note = "torch has no CUDA device here"
    except Exception as e:  # noqa: BLE001
        torch_note = f"torch/torchvision not importable ({e!r:.120})"

    def torch_pass():
        o = os.path.join(out_root, "inproc_torch")
        shutil.rmtree(o, ignore_errors=True)
        return torch_job(files, o, src=src)

    # warm-up, untimed: texelflow's device and kernels; the CUDA context, cuDNN and nvJPEG
    tf_pass()
    if torch_note is None:
        try:
            torch_pass()
        except Exception as e:  # noqa: BLE001
            torch_note = f"the torchvision loop failed ({e!r:.200})"
    tf_walls, torch_walls = [], []
    for _ in range(repeats):
        tf_walls.append(tf_pass())
        if torch_note is None:
            torch_walls.append(torch_pass())
    rows = []
    for label, walls in [("in-process, warm: texelflow Pipeline.apply_batch (default settings)", tf_walls), ("in-process, warm: torchvision loop (nvJPEG decode + encode, convolutions)", torch_walls)]:
        if not walls:
            continue
        m = statistics.median(walls)
        rows.append((label, n, m, float("nan"), walls))
        print(f"{label}: {n / m:.1f} images/s (runs {', '.join(f'{w:.2f}' for w in walls)} s)", flush=True)
    if torch_note:
        print(f"in-process: torchvision rows skipped: {torch_note}", flush=True)
    return rows, torch_note


def main():
    if cv2 is None:
        sys.exit("bench/e2e/jpeg_batch.py needs OpenCV (cv2) to make its files and time its OpenCV rows")
    os.makedirs(SRC)
    os.makedirs(BIG)
    with mp.Pool() as p:
        p.map(make, range(N))
        p.map(make_big, range(16))
    files = sorted(os.listdir(SRC))
    big = sorted(os.listdir(BIG))
    mb = sum(os.path.getsize(os.path.join(SRC, f)) for f in files) / 1e6
    rows = []

    def median_of(label, n, fn):
        runs = [fn() for _ in range(REPEATS)]
        walls = [r[0] for r in runs]
        m = statistics.median(walls)
        rows.append((label, n, m, max(r[1] for r in runs), walls))
        print(f"{label}: {n / m:.1f} images/s (runs {', '.join(f'{w:.2f}' for w in walls)} s)", flush=True)

    one = os.path.join(SRC, files[0])
    single_lines = []
    # the machine's first batch (the driver compiles every kernel), with its phases
    o = os.path.join(ROOT, "cold")
    t = time.perf_counter()
    p = subprocess.run([BIN, "apply", SRC, "--out-dir", o, "--name", "{stem}.jpg", "--timings", "-p", SPEC], capture_output=True, text=True)
    single_lines.append(f"the machine's first batch: {time.perf_counter() - t:.2f} s; " + " ".join(l for l in p.stderr.splitlines() if l.startswith("process")))
    print(single_lines[-1], flush=True)
    cold, _ = timed([BIN, "apply", one, os.path.join(ROOT, "cold.jpg"), "-p", SPEC])
    median_of(f"OpenCV Pool({CORES}): decode, blur, Sobel, encode", N, lambda: pool(cv_job, SRC, files, os.path.join(ROOT, "cv")))
    median_of(f"OpenCV Pool({CORES}): decode + grey encode only", N, lambda: pool(cv_codec_job, SRC, files, os.path.join(ROOT, "cvc")))
    t = time.perf_counter()
    for f in files[:16]:
        cv_codec_job((os.path.join(SRC, f), os.path.join(ROOT, "cv1.jpg")))
    single_lines.append(f"OpenCV decode + grey encode on one core: {(time.perf_counter() - t) / 16 * 1e3:.1f} ms an image")

    def tf(extra, pipe=SPEC, src=SRC, name="{stem}.jpg", after=()):
        def go():
            o = os.path.join(ROOT, "tf")
            shutil.rmtree(o, ignore_errors=True)
            return timed([BIN] + extra + ["apply", src, "--out-dir", o, "--name", name, "-p", pipe] + list(after))
        return go

    median_of("texelflow batch, default settings (GPU decode, the Huffman decode too, and encode)", N, tf([]))
    median_of("texelflow batch, --host-entropy (the Huffman decode on CPU threads)", N, tf(["--host-entropy"]))
    # a longer batch (the 64 files 4 times, linked under other names): start-up spread wider
    long_src = os.path.join(ROOT, "long")
    os.makedirs(long_src, exist_ok=True)
    for k in range(4):
        for f in files:
            os.link(os.path.join(SRC, f), os.path.join(long_src, f"{k}_{f}"))
    median_of("texelflow batch of 256 (the 64 four times), default", 4 * N, tf([], src=long_src))
    median_of("texelflow batch, --host-encode (GPU-assisted decode)", N, tf(["--host-encode"]))
    median_of("texelflow batch, --host-decode (GPU encode)", N, tf(["--host-decode"]))
    median_of("texelflow batch, --host-decode --host-encode", N, tf(["--host-decode", "--host-encode"]))
    median_of(f"texelflow batch, --jobs {2 * CORES}", N, tf([], after=["--jobs", str(2 * CORES)]))
    # issue 34: the batch over every GPU of the host (one here: the cost of the list itself)
    median_of("texelflow batch, --devices all", N, tf(["--devices", "all"]))
    median_of("texelflow batch --cpu -p to_gray (its decode + encode alone)", N, tf(["--cpu"], "to_gray"))
    # the measured choice of --gpu-jobs (workers running their pipeline on the device at once)
    for g in (1, 2, 4, 8, 16):
        median_of(f"texelflow batch, --gpu-jobs {g}", N, tf([], after=["--gpu-jobs", str(g)]))
    median_of("texelflow batch, --host-decode --gpu-jobs 16", N, tf(["--host-decode"], after=["--gpu-jobs", "16"]))
    try:
        import torch  # noqa: F401

        median_of("torchvision (nvJPEG decode + encode on the GPU, one process)", N, lambda: (torch_job(files, os.path.join(ROOT, "torch")), float("nan")))
        long_files = sorted(os.listdir(long_src))
        median_of("torchvision, 256 (the 64 four times), in the same process", 4 * N, lambda: (torch_job(long_files, os.path.join(ROOT, "torch"), src=long_src), float("nan")))
        # the whole command, as texelflow's are timed: Python's start, torch's import, CUDA's start
        me = os.path.abspath(__file__)
        median_of("torchvision, whole process (python, import torch, CUDA start, the 64)", N, lambda: timed([sys.executable, me, "--torch-once", SRC, os.path.join(ROOT, "torch1")]))
        dec = statistics.median(torch_job(files, None, decode_only=True) for _ in range(REPEATS))
        rows.append(("torchvision GPU decode alone (files in memory, batches of 16)", N, dec, float("nan"), [dec]))
    except Exception as e:  # noqa: BLE001
        print("torchvision path failed:", repr(e)[:300], flush=True)
    # the same process, both warm, passes alternating (texelflow's batch in-process, Python)
    ip_rows, ip_note = in_process(SRC, REPEATS, ROOT)
    rows += ip_rows
    if ip_note:
        single_lines.append(f"in-process: torchvision rows skipped: {ip_note}")
    thumb = "resize(width=500, height=333, method=area)"
    median_of(f"thumbnails 6000x4000 -> 500: OpenCV Pool({CORES}) IMREAD_REDUCED_COLOR_8", len(big), lambda: pool(cv_thumb_job, BIG, big, os.path.join(ROOT, "cvt")))
    median_of("thumbnails 6000x4000 -> 500: texelflow batch, default (the small-work rule)", len(big), tf([], thumb, BIG))
    median_of("thumbnails 6000x4000 -> 500: texelflow batch, --gpu", len(big), tf(["--gpu"], thumb, BIG))
    median_of("thumbnails 6000x4000 -> 500: texelflow batch, --host-decode", len(big), tf(["--host-decode"], thumb, BIG))
    median_of("thumbnails 6000x4000 -> 500: texelflow batch, --no-shrink-on-load", len(big), tf([], thumb, BIG, after=["--no-shrink-on-load"]))
    median_of("thumbnails 6000x4000 -> 500: texelflow batch, --cpu (no GPU start-up)", len(big), tf(["--cpu"], thumb, BIG))
    median_of("thumbnails: as before issue 30 (--no-shrink-on-load --host-decode --host-encode --gpu-jobs 16)", len(big), tf(["--host-decode", "--host-encode"], thumb, BIG, after=["--no-shrink-on-load", "--gpu-jobs", "16"]))
    singles = [timed([BIN, "apply", "--overwrite", one, os.path.join(ROOT, "one.jpg"), "-p", SPEC])[0] for _ in range(5)]
    for extra in ([], ["--host-encode"]):
        p = subprocess.run([BIN] + extra + ["apply", "--overwrite", one, os.path.join(ROOT, "one.jpg"), "--timings", "-p", SPEC], capture_output=True, text=True)
        singles_path = [l for l in p.stderr.splitlines() if l.startswith("path")]
        rows_single = f"single apply {' '.join(extra) or '(default)'}: " + " ".join(singles_path)
        print(rows_single, flush=True)
        single_lines.append(rows_single)
    breakdown = []
    # where the time goes, and how it grows with the workers sharing the device
    # the CPU path's decode and encode columns against OpenCV's decode + grey encode (CPU parity)
    for extra, after, pipe in [(["--host-entropy"], [], SPEC), (["--host-entropy"], ["--jobs", "1"], SPEC), (["--cpu"], [], thumb), ([], [], thumb), ([], [], SPEC), (["--host-encode"], [], SPEC), ([], ["--jobs", "1"], SPEC), ([], ["--jobs", "4"], SPEC), (["--host-encode"], ["--jobs", "1"], SPEC), (["--cpu"], [], "to_gray"), (["--cpu"], ["--jobs", "1"], "to_gray")]:
        o = os.path.join(ROOT, "timed")
        shutil.rmtree(o, ignore_errors=True)
        src = BIG if pipe == thumb else SRC
        p = subprocess.run([BIN] + extra + ["apply", src, "--out-dir", o, "--name", "{stem}.jpg", "--timings", "-p", pipe] + after, capture_output=True, text=True)
        breakdown += [f"--timings {' '.join(extra + after) or '(default)'} -p {pipe}:"] + [l for l in p.stderr.splitlines() if l.startswith(("total", "file ", "process", "texelflow: on"))]
    lines = [f"{N} JPEGs 3840x2160 q92, {mb:.0f} MB; 16 JPEGs 6000x4000 q92; {CORES} cores", f"{'run':72} {'images/s':>9} {'median s':>9} {'peak RSS MB':>12}  runs"]
    for label, n, wall, rss, walls in rows:
        lines.append(f"{label:72} {n / wall:9.1f} {wall:9.3f} {rss:12.0f}  {' '.join(f'{w:.2f}' for w in walls)}")
    lines.append(f"single apply, one 4K JPEG, first run on the machine: {cold:.2f} s; then {' '.join(f'{s:.2f}' for s in singles)} s")
    lines += single_lines
    lines += breakdown
    print("\n".join(lines))
    out_dir = os.environ.get("OUT") or os.path.join("out", "bench", time.strftime("%Y%m%d-%H%M%S", time.gmtime()))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "jpeg_batch.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    shutil.rmtree(ROOT, ignore_errors=True)


if ONCE:
    SRC = sys.argv[2]
    torch_job(sorted(os.listdir(SRC)), sys.argv[3])
elif INPROC:
    try:
        ip_rows, _ = in_process(os.path.abspath(sys.argv[2]), REPEATS, ROOT)
        for label, n, wall, _, walls in ip_rows:
            print(f"{label:72} {n / wall:9.1f} {wall:9.3f}  {' '.join(f'{w:.2f}' for w in walls)}")
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
else:
    main()
