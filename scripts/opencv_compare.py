#!/usr/bin/env python3
"""pixelflow against OpenCV where OpenCV has the same operation (run by scripts/test.sh).

Each case runs the pixelflow CLI (GPU, and --cpu) on one deterministic 97x61 RGBA image and
compares with OpenCV's function on the same pixels. Where the two differ by design, the case
says how, and its bound is what that difference allows; everything else must match within one
8-bit level.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

BIN = sys.argv[1]
TMP = Path(tempfile.mkdtemp(prefix="pixelflow-opencv-"))


def test_image(w=97, h=61):
    rng = np.random.default_rng(12345)
    y, x = np.mgrid[0:h, 0:w]
    img = np.empty((h, w, 4), np.uint8)
    img[..., 0] = (x * 255 // w + rng.integers(0, 40, (h, w))).clip(0, 255)
    img[..., 1] = (y * 255 // h + rng.integers(0, 40, (h, w))).clip(0, 255)
    img[..., 2] = rng.integers(0, 256, (h, w))
    img[..., 3] = 255 - rng.integers(0, 56, (h, w))
    return img


def save(path, rgba):
    cv2.imwrite(str(path), cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA))


def load(path):
    return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_UNCHANGED), cv2.COLOR_BGRA2RGBA)


def pixelflow(inp, spec, cpu):
    out = TMP / ("out_cpu.png" if cpu else "out_gpu.png")
    cmd = [BIN] + (["--cpu"] if cpu else []) + ["apply", str(inp), str(out), "-p", spec]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"pixelflow failed on {spec}: {r.stderr.strip()}")
    return load(out)


def rep(f, *a, **k):
    return f(*a, borderType=cv2.BORDER_REPLICATE, **k)


def main():
    img = test_image()
    inp = TMP / "in.png"
    save(inp, img)
    img2 = np.ascontiguousarray(img[::-1, ::-1])
    save(TMP / "in2.png", img2)
    rgb = slice(0, 3)
    every = slice(0, 4)
    f32 = img.astype(np.float32)
    sharpen_k = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
    laplace_k = np.array([[0.5, 1, 0.5], [1, -6, 1], [0.5, 1, 0.5]], np.float32)
    round8 = lambda a: np.clip(np.floor(a + 0.5), 0, 255).astype(np.uint8)
    # (spec, OpenCV's result, channels compared, max level difference, why it may differ)
    cases = [
        ("box_blur(radius=3)", rep(cv2.blur, img, (7, 7)), every, 1, "rounding of the mean"),
        ("gaussian_blur(sigma=2)", rep(cv2.GaussianBlur, img, (13, 13), 2.0), every, 1,
         "OpenCV's 8-bit Gaussian uses fixed-point weights; pixelflow f32 (f16 on GPUs that have it, within one level)"),
        ("dilation(radius=2)", rep(cv2.dilate, img, np.ones((5, 5), np.uint8)), every, 0, ""),
        ("erosion(radius=2)", rep(cv2.erode, img, np.ones((5, 5), np.uint8)), every, 0, ""),
        ("convolution_3x3(kernel=[0,-1,0,-1,5,-1,0,-1,0])", round8(rep(cv2.filter2D, f32, -1, sharpen_k)), rgb, 1,
         "alpha is kept, as GPUImage does (OpenCV filters it too)"),
        ("laplacian", round8(rep(cv2.filter2D, f32, -1, laplace_k) + 127.5), rgb, 1,
         "GPUImage's kernel and +0.5 offset, which OpenCV's Laplacian lacks: compared with filter2D"),
        ("median", cv2.medianBlur(img, 3), every, 0, "both replicate the border"),
        ("median_5x5", cv2.medianBlur(img, 5), every, 0, "both replicate the border"),
        ("median(radius=4)", cv2.medianBlur(img, 9), every, 0, "both replicate the border"),
        ("bilateral(radius=3, sigma_color=30, sigma_space=2)",
         np.dstack([cv2.bilateralFilter(np.ascontiguousarray(img[..., :3]), 7, 30, 2, borderType=cv2.BORDER_REPLICATE), img[..., 3]]), rgb, 1,
         "OpenCV rounds half to even and may use a vectorised exp; alpha is kept (OpenCV filters 3 channels)"),
        (f"add_weighted(with={TMP / 'in2.png'}, alpha=0.7, beta=0.4, gamma=0.05)",
         cv2.addWeighted(img, 0.7, img2, 0.4, 0.05 * 255), every, 1, "rounding (OpenCV rounds half to even)"),
        ("resize(width=50, height=33)", cv2.resize(img, (50, 33), interpolation=cv2.INTER_LINEAR), every, 1,
         "OpenCV's 8-bit bilinear uses 11-bit fixed-point weights"),
        # border=reflect: OpenCV's default border (BORDER_REFLECT_101), no borderType given
        ("box_blur(radius=3, border=reflect)", cv2.blur(img, (7, 7)), every, 1, "rounding of the mean"),
        ("box_blur(radius=20, border=reflect)", cv2.blur(img, (41, 41)), every, 1, "rounding of the mean"),
        ("gaussian_blur(sigma=2, border=reflect)", cv2.GaussianBlur(img, (13, 13), 2.0), every, 1,
         "OpenCV's 8-bit Gaussian uses fixed-point weights"),
        ("gaussian_blur(sigma=7, border=reflect)", cv2.GaussianBlur(img, (43, 43), 7.0), every, 1,
         "OpenCV's fixed-point weights; pixelflow's decimated schedule on the GPU (within one level of its twin)"),
        ("bilateral(radius=3, sigma_color=30, sigma_space=2, border=reflect)",
         np.dstack([cv2.bilateralFilter(np.ascontiguousarray(img[..., :3]), 7, 30, 2), img[..., 3]]), rgb, 1,
         "OpenCV rounds half to even and may use a vectorised exp; alpha is kept"),
        ("convolution_3x3(kernel=[0,-1,0,-1,5,-1,0,-1,0], border=reflect)", round8(cv2.filter2D(f32, -1, sharpen_k)), rgb, 1,
         "alpha is kept, as GPUImage does"),
        ("laplacian(border=reflect)", round8(cv2.filter2D(f32, -1, laplace_k) + 127.5), rgb, 1,
         "GPUImage's kernel and +0.5 offset: compared with filter2D"),
        # OpenCV's medianBlur always replicates the border (it takes no borderType): the reflect
        # median is compared with medianBlur of the image padded by copyMakeBorder(REFLECT_101)
        ("median(radius=4, border=reflect)",
         cv2.medianBlur(cv2.copyMakeBorder(img, 4, 4, 4, 4, cv2.BORDER_REFLECT_101), 9)[4:-4, 4:-4], every, 0,
         "medianBlur has no reflect border: padded by copyMakeBorder first"),
    ]
    # pad against copyMakeBorder, every mode, exact; on a small image too, with borders wider
    # than it (reflected or wrapped repeatedly, as OpenCV's borderInterpolate)
    small = np.ascontiguousarray(img[:4, :5])
    save(TMP / "small.png", small)
    modes = {"replicate": cv2.BORDER_REPLICATE, "reflect": cv2.BORDER_REFLECT, "reflect101": cv2.BORDER_REFLECT_101,
             "constant": cv2.BORDER_CONSTANT, "wrap": cv2.BORDER_WRAP}
    for name, mode in modes.items():
        for src, (t, b_, l, r) in ((img, (3, 5, 7, 2)), (small, (9, 12, 11, 13))):
            want = cv2.copyMakeBorder(src, t, b_, l, r, mode, value=(51, 102, 153, 255))
            cases.append((f"pad(top={t}, bottom={b_}, left={l}, right={r}, mode={name}, color=[0.2, 0.4, 0.6, 1])",
                          want, every, 0, "" if src is img else "borders wider than the image", src is small))
    cases.append(("box_blur(radius=6, border=reflect)", cv2.blur(small, (13, 13)), every, 1,
                  "window wider than the 5x4 image: reflected repeatedly", True))
    cases.append(("gaussian_blur(sigma=2, border=reflect)", cv2.GaussianBlur(small, (13, 13), 2.0), every, 1,
                  "window wider than the 5x4 image; OpenCV's fixed-point weights", True))
    cases = [c if len(c) == 6 else c + (False,) for c in cases]
    failures = []
    for spec, want, ch, bound, why, on_small in cases:
        for cpu in (False, True):
            got = pixelflow(TMP / "small.png" if on_small else inp, spec, cpu)
            if got.shape != want.shape:
                failures.append(f"{spec} ({'cpu' if cpu else 'gpu'}): shape {got.shape} vs OpenCV {want.shape}")
                continue
            d = int(np.abs(got[..., ch].astype(int) - want[..., ch].astype(int)).max())
            status = "ok" if d <= bound else "FAIL"
            print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec}: max diff {d} (bound {bound}{'; ' + why if why else ''})")
            if d > bound:
                failures.append(f"{spec}: {d} > {bound}")
    # adaptive threshold against OpenCV's, on pixelflow's own luminance (OpenCV's gray uses other
    # weights): OpenCV keeps src > mean - C where pixelflow keeps src + C >= mean, and OpenCV rounds
    # the mean to 8 bits first, so pixels whose mean lies within a level of the bound may differ
    gray = pixelflow(inp, "grayscale", True)[..., 0]
    want = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 9, 0.05 * 255)
    for cpu in (False, True):
        got = pixelflow(inp, "adaptive_threshold(radius=4, offset=0.05)", cpu)[..., 0]
        frac = float((got != want).mean())
        status = "ok" if frac <= 0.01 else "FAIL"
        print(f"{status:4} {'cpu' if cpu else 'gpu'} adaptive_threshold vs cv2.adaptiveThreshold(MEAN_C): {frac:.2%} of pixels differ (bound 1%: strict comparison and the mean's rounding)")
        if frac > 0.01:
            failures.append(f"adaptive_threshold: {frac:.2%} differ")
    failures += compare_corners()
    # Canny on Gray8 without blur against cv2.Canny (Sobel 3x3, L2): the same integer gradient,
    # OpenCV's direction sectors and comparisons (strict thresholds, magnitude 0 outside the image
    # in the suppression, grey replicated at the border), so the maps must be equal everywhere,
    # borders included. Thresholds t here are OpenCV's 255 t. Noise (many equal magnitudes, long
    # tangled chains) and a smooth picture with edges.
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    shapes = np.where((xx - 60) ** 2 + (yy - 25) ** 2 < 300, 200, 60) + np.where(xx > yy + 10, 40, 0) + (xx // 3)
    shapes = cv2.GaussianBlur(shapes.clip(0, 255).astype(np.uint8), (5, 5), 1.0)
    noise = img[..., 1]
    for name, g in (("noise", noise), ("shapes", shapes)):
        gin = TMP / f"gray_{name}.png"
        cv2.imwrite(str(gin), g)
        for lo, hi in ((50, 150), (20, 60), (25.5, 102)):
            want = cv2.Canny(g, lo, hi, L2gradient=True)
            spec = f"canny_edge_detection(sigma=0, lower={lo / 255:.9f}, upper={hi / 255:.9f})"
            for cpu in (False, True):
                out = TMP / "canny_out.png"
                r = subprocess.run([BIN] + (["--cpu"] if cpu else []) + ["apply", str(gin), str(out), "-p", spec], capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit(f"pixelflow failed on {spec}: {r.stderr.strip()}")
                got = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
                n = int((got != want).sum())
                inner = int((got[1:-1, 1:-1] != want[1:-1, 1:-1]).sum())
                status = "ok" if n == 0 else "FAIL"
                print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec} on {name} vs cv2.Canny({lo}, {hi}, L2gradient=True): "
                      f"{n} pixels differ ({inner} away from the border; {int((want > 0).sum())} edge pixels)")
                if n:
                    failures.append(f"{spec} on {name}: {n} pixels differ from cv2.Canny")
    if failures:
        raise SystemExit("OpenCV comparison failed:\n" + "\n".join(failures))


def rectangles_image(w=160, h=120, n=14, seed=7):
    """Grey rectangles of random levels on a grey ground, plus mild noise: corners where
    they cross, and a modest number of them (noise alone would make FAST fire everywhere)."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w), 90, np.int32)
    for _ in range(n):
        x0, y0 = rng.integers(0, w - 10), rng.integers(0, h - 10)
        x1, y1 = x0 + rng.integers(8, w // 2), y0 + rng.integers(8, h // 2)
        img[y0:y1, x0:x1] = rng.integers(0, 256)
    img += rng.integers(-3, 4, (h, w))
    return img.clip(0, 255).astype(np.uint8)


def pixelflow_points(inp, spec, cpu):
    out = TMP / ("points_cpu.json" if cpu else "points_gpu.json")
    cmd = [BIN] + (["--cpu"] if cpu else []) + ["apply", str(inp), "-p", spec, "--data", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"pixelflow failed on {spec}: {r.stderr.strip()}")
    return json.loads(out.read_text())


def compare_corners():
    """FAST against cv2.FastFeatureDetector (TYPE_9_16): the same keypoints, exactly, and with
    non-maximum suppression the same scores (OpenCV's keypoint response; without it OpenCV
    leaves the response 0, pixelflow still reports the score). The input is grey, so both see
    the same luma. Harris against cv2.cornerHarris, tolerantly: pixelflow runs GPUImage's chain
    (Prewitt derivatives of luma, a Gaussian of sigma 2 over the products, k = 0.04, 8-bit
    stages, threshold 0.2 on the 8-bit response, 3x3 non-maximum suppression) where OpenCV uses
    3x3 Sobel derivatives and a 3x3 box sum (blockSize 3): the responses differ in scale and
    smoothing, so the check is that most (80%) of OpenCV's strong corners (response above 5% of
    its maximum, 3x3 local maxima) have a pixelflow corner (threshold 0.1) within 1 pixel, and the
    reverse (on this image: 86% and 94%)."""
    failures = []
    gray = rectangles_image()
    inp = TMP / "rects.png"
    cv2.imwrite(str(inp), gray)
    for threshold, nonmax in ((10, True), (25, True), (10, False)):
        det = cv2.FastFeatureDetector_create(threshold, nonmax, cv2.FastFeatureDetector_TYPE_9_16)
        kps = det.detect(gray)
        want = {(int(k.pt[0]), int(k.pt[1])): k.response for k in kps}
        spec = f"fast_corner_detection(threshold={threshold}, nonmax={'true' if nonmax else 'false'}) | corner_points"
        for cpu in (False, True):
            got = pixelflow_points(inp, spec, cpu)
            pts = {(p["x"], p["y"]): p["score"] for p in got["points"]}
            same = set(pts) == set(want)
            scores = not nonmax or all(pts[k] == want[k] for k in want if k in pts)
            status = "ok" if same and scores and not got["overflow"] else "FAIL"
            print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec} vs cv2.FAST: {len(pts)} corners, OpenCV {len(want)}; "
                  f"{len(set(pts) ^ set(want))} differ{'; scores equal' if nonmax and scores else ''}")
            if status == "FAIL":
                failures.append(f"{spec}: {len(set(pts) ^ set(want))} keypoints differ, scores equal: {scores}")
    r = cv2.cornerHarris(gray.astype(np.float32), 3, 3, 0.04, borderType=cv2.BORDER_REPLICATE)
    peak = (r == cv2.dilate(r, np.ones((3, 3), np.uint8))) & (r > 0.05 * r.max())
    ys, xs = np.nonzero(peak)
    want = np.stack([xs, ys], 1)
    for cpu in (False, True):
        got = pixelflow_points(inp, "harris_corner_detection(threshold=0.1) | corner_points", cpu)["points"]
        mine = np.array([[p["x"], p["y"]] for p in got]).reshape(-1, 2)
        near = lambda a, b: np.abs(a[:, None, :] - b[None, :, :]).max(2).min(1) <= 1 if len(b) else np.zeros(len(a), bool)
        found = float(near(want, mine).mean()) if len(want) else 1.0
        real = float(near(mine, want).mean()) if len(mine) else 0.0
        ok = found >= 0.8 and real >= 0.8
        print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} harris_corner_detection(threshold=0.1) vs cv2.cornerHarris: {found:.0%} of OpenCV's "
              f"{len(want)} strong corners found within 1 px, {real:.0%} of pixelflow's {len(mine)} near one of OpenCV's (bound 80%: "
              "Prewitt + Gaussian sigma 2 against Sobel 3x3 + box 3x3)")
        if not ok:
            failures.append(f"harris: {found:.0%} found, {real:.0%} near")
    return failures


main()
