#!/usr/bin/env python3
"""texelflow against OpenCV where OpenCV has the same operation (run by scripts/test.sh).

Each case runs the texelflow CLI (--gpu, and --cpu) on one deterministic 97x61 RGBA image and
compares with OpenCV's function on the same pixels. Where the two differ by design, the case
says how, and its bound is what that difference allows; everything else must match within one
8-bit level. texelflow runs with `--straight-alpha`: OpenCV filters colour as stored, while
texelflow by default premultiplies it by alpha around its averaging filters (docs/library.md, "Precision and conventions").
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

BIN = sys.argv[1]
TMP = Path(tempfile.mkdtemp(prefix="texelflow-opencv-"))


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


def texelflow(inp, spec, cpu):
    out = TMP / ("out_cpu.png" if cpu else "out_gpu.png")
    cmd = [BIN, "--straight-alpha"] + (["--cpu"] if cpu else ["--gpu"]) + ["apply", str(inp), str(out), "--overwrite", "-p", spec]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"texelflow failed on {spec}: {r.stderr.strip()}")
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
         "OpenCV's 8-bit Gaussian uses fixed-point weights; texelflow f32 (f16 on GPUs that have it, within one level)"),
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
         "OpenCV's fixed-point weights; texelflow's decimated schedule on the GPU (within one level of its twin)"),
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
            got = texelflow(TMP / "small.png" if on_small else inp, spec, cpu)
            if got.shape != want.shape:
                failures.append(f"{spec} ({'cpu' if cpu else 'gpu'}): shape {got.shape} vs OpenCV {want.shape}")
                continue
            d = int(np.abs(got[..., ch].astype(int) - want[..., ch].astype(int)).max())
            status = "ok" if d <= bound else "FAIL"
            print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec}: max diff {d} (bound {bound}{'; ' + why if why else ''})")
            if d > bound:
                failures.append(f"{spec}: {d} > {bound}")
    # adaptive threshold against OpenCV's, on texelflow's own luminance (OpenCV's gray uses other
    # weights): OpenCV keeps src > mean - C where texelflow keeps src + C >= mean, and OpenCV rounds
    # the mean to 8 bits first, so pixels whose mean lies within a level of the bound may differ
    gray = texelflow(inp, "grayscale", True)[..., 0]
    want = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 9, 0.05 * 255)
    for cpu in (False, True):
        got = texelflow(inp, "adaptive_threshold(radius=4, offset=0.05)", cpu)[..., 0]
        frac = float((got != want).mean())
        status = "ok" if frac <= 0.01 else "FAIL"
        print(f"{status:4} {'cpu' if cpu else 'gpu'} adaptive_threshold vs cv2.adaptiveThreshold(MEAN_C): {frac:.2%} of pixels differ (bound 1%: strict comparison and the mean's rounding)")
        if frac > 0.01:
            failures.append(f"adaptive_threshold: {frac:.2%} differ")
    failures += compare_guided(img)
    failures += compare_corners()
    failures += compare_hough()
    failures += compare_histograms(img)
    # Canny on Gray8 without blur against cv2.Canny (Sobel 3x3, L2): the same integer gradient,
    # OpenCV's direction sectors and comparisons (strict thresholds, magnitude 0 outside the image
    # in the suppression, grey replicated at the border), so the maps must be equal everywhere,
    # borders included. Thresholds t here are OpenCV's 255 t. Noise (many equal magnitudes, long
    # tangled chains) and a smooth picture with edges.
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    shapes = np.where((xx - 60) ** 2 + (yy - 25) ** 2 < 300, 200, 60) + np.where(xx > yy + 10, 40, 0) + (xx // 3)
    shapes = cv2.GaussianBlur(shapes.clip(0, 255).astype(np.uint8), (5, 5), 1.0)
    noise = img[..., 1]
    # bilateral on Gray8 against OpenCV's one-channel bilateralFilter (range distance |Δ|), replicated borders
    gin = TMP / "gray_bilateral.png"
    cv2.imwrite(str(gin), noise)
    want = cv2.bilateralFilter(noise, 7, 30, 2, borderType=cv2.BORDER_REPLICATE)
    for cpu in (False, True):
        out = TMP / "bilateral_gray_out.png"
        spec = "bilateral(radius=3, sigma_color=30, sigma_space=2)"
        r = subprocess.run([BIN, "--straight-alpha"] + (["--cpu"] if cpu else ["--gpu"]) + ["apply", str(gin), str(out), "--overwrite", "-p", spec], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"texelflow failed on {spec} (Gray8): {r.stderr.strip()}")
        got = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
        d = int(np.abs(got.astype(int) - want.astype(int)).max()) if got.shape == want.shape else 999
        status = "ok" if d <= 1 else "FAIL"
        print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec} on Gray8 vs cv2.bilateralFilter (one channel): max diff {d} (bound 1; OpenCV rounds half to even)")
        if d > 1:
            failures.append(f"{spec} on Gray8: {d} > 1")
    for name, g in (("noise", noise), ("shapes", shapes)):
        gin = TMP / f"gray_{name}.png"
        cv2.imwrite(str(gin), g)
        for lo, hi in ((50, 150), (20, 60), (25.5, 102)):
            want = cv2.Canny(g, lo, hi, L2gradient=True)
            spec = f"canny_edge_detection(sigma=0, lower={lo / 255:.9f}, upper={hi / 255:.9f})"
            for cpu in (False, True):
                out = TMP / "canny_out.png"
                r = subprocess.run([BIN, "--straight-alpha"] + (["--cpu"] if cpu else ["--gpu"]) + ["apply", str(gin), str(out), "--overwrite", "-p", spec], capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit(f"texelflow failed on {spec}: {r.stderr.strip()}")
                got = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
                n = int((got != want).sum())
                inner = int((got[1:-1, 1:-1] != want[1:-1, 1:-1]).sum())
                status = "ok" if n == 0 else "FAIL"
                print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec} on {name} vs cv2.Canny({lo}, {hi}, L2gradient=True): "
                      f"{n} pixels differ ({inner} away from the border; {int((want > 0).sum())} edge pixels)")
                if n:
                    failures.append(f"{spec} on {name}: {n} pixels differ from cv2.Canny")
    # CLAHE on Gray8 against cv2.createCLAHE(clipLimit, tileGridSize).apply: the same integer
    # clip limit (int(clipLimit * tile pixels / 256), at least 1), redistribution, f32 LUT scale
    # rounded half to even, and the padding OpenCV adds when the size is not a multiple of the grid
    # (reflect-101 at the right and bottom, by whole tiles in both directions when either is not a
    # multiple). Equal; the bound of one level allows a GPU that fuses the final blend's multiply-adds
    # where OpenCV rounds each product (a pixel on a rounding boundary).
    for name, g in (("noise", noise), ("shapes", shapes)):
        for gw, gh in ((97, 61), (96, 64), (64, 61), (17, 5)):
            gg = np.ascontiguousarray(cv2.resize(g, (gw, gh), interpolation=cv2.INTER_NEAREST))
            gin = TMP / "gray_clahe.png"
            cv2.imwrite(str(gin), gg)
            for clip, tx, ty in ((40, 8, 8), (2, 8, 8), (0, 8, 8), (3, 4, 6), (1.5, 3, 2)):
                want = cv2.createCLAHE(clip, (tx, ty)).apply(gg)
                spec = f"clahe(clip_limit={clip}, tiles_x={tx}, tiles_y={ty})"
                for cpu in (False, True):
                    out = TMP / "clahe_out.png"
                    r = subprocess.run([BIN, "--straight-alpha"] + (["--cpu"] if cpu else ["--gpu"]) + ["apply", str(gin), str(out), "--overwrite", "-p", spec], capture_output=True, text=True)
                    if r.returncode != 0:
                        raise SystemExit(f"texelflow failed on {spec}: {r.stderr.strip()}")
                    got = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
                    d = np.abs(got.astype(int) - want.astype(int))
                    ok = got.shape == want.shape and d.max() <= 1
                    print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} {spec} on {name} {gw}x{gh} vs cv2.createCLAHE({clip}, ({tx}, {ty})): "
                          f"max diff {d.max()}, {int((d > 0).sum())} pixels differ (bound 1: a fused multiply-add in the final blend)")
                    if not ok:
                        failures.append(f"{spec} on {name} {gw}x{gh}: max diff {d.max()} from cv2.createCLAHE")
    failures += compare_assessment(img)
    failures += compare_geometry(img)
    if failures:
        raise SystemExit("OpenCV comparison failed:\n" + "\n".join(failures))


def lanczos3_reference(img, ow, oh):
    """Separable 6x6 Lanczos (a = 3) in f64, OpenCV's half-pixel alignment, replicate edges,
    weights normalised to sum 1: an independent reference for resize(method=lanczos3), which
    OpenCV lacks (its INTER_LANCZOS4 is 8x8)."""
    def axis(n_in, n_out):
        m = np.zeros((n_out, n_in))
        for d in range(n_out):
            pos = (d + 0.5) * n_in / n_out - 0.5
            f = int(np.floor(pos))
            ws = [np.sinc(u) * np.sinc(u / 3) for u in (f + k - pos for k in range(-2, 4))]
            for k, w in zip(range(-2, 4), ws):
                m[d, min(max(f + k, 0), n_in - 1)] += w / sum(ws)
        return m
    ay, ax = axis(img.shape[0], oh), axis(img.shape[1], ow)
    out = np.einsum("yi,ijc,xj->yxc", ay, img.astype(np.float64), ax)
    return np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8)


def align_corners_reference(img, ow, oh):
    """Bilinear at d * (in - 1) / (out - 1) (align_corners=True), f64."""
    h, w = img.shape[:2]
    sy = np.arange(oh) * ((h - 1) / (oh - 1) if oh > 1 else 0)
    sx = np.arange(ow) * ((w - 1) / (ow - 1) if ow > 1 else 0)
    y0, x0 = np.floor(sy).astype(int), np.floor(sx).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    ty, tx = (sy - y0)[:, None, None], (sx - x0)[None, :, None]
    f = img.astype(np.float64)
    top = f[y0][:, x0] * (1 - tx) + f[y0][:, x1] * tx
    bottom = f[y1][:, x0] * (1 - tx) + f[y1][:, x1] * tx
    return np.clip(np.floor(top * (1 - ty) + bottom * ty + 0.5), 0, 255).astype(np.uint8)


def compare_geometry(img):
    """Flips, rotations, every resize method and the warps against OpenCV. Each line prints the
    measured max difference per method; the bounds state why they are not 0."""
    h, w = img.shape[:2]
    even = np.ascontiguousarray(img[:60, :96])
    save(TMP / "even.png", even)
    rot = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 30, 1.0)
    aff = np.array([[0.8, 0.3, 5.5], [-0.2, 1.1, -3.25]])
    src_q = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    dst_q = np.float32([[8, 5], [w - 10, 0], [w - 1, h - 4], [3, h - 12]])
    persp = cv2.getPerspectiveTransform(src_q, dst_q)
    flat = lambda a: ", ".join(f"{v:.9g}" for v in np.asarray(a).ravel())
    lin, const = cv2.INTER_LINEAR, cv2.BORDER_CONSTANT
    fixed = "OpenCV's 8-bit weights are 11-bit fixed point"
    # measured max diff 1 (0 for rotate=30) against OpenCV 5.0 here; OpenCV's remap tables hold the source position in
    # 1/32 pixel steps, which on this noisy image can move a sample by a few levels in other builds
    warp_why = "OpenCV's 1/32-pixel source positions (INTER_BITS); texelflow exact f32 coordinates"
    cases = [
        ("flip", cv2.flip(img, 1), 0, "", img),
        ("flip(mode=vertical)", cv2.flip(img, 0), 0, "", img),
        ("flip(mode=both)", cv2.flip(img, -1), 0, "", img),
        ("transpose", cv2.transpose(img), 0, "", img),
        ("rotate90", cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), 0, "", img),
        ("rotate180", cv2.rotate(img, cv2.ROTATE_180), 0, "", img),
        ("rotate270", cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE), 0, "", img),
    ]
    sizes = ((50, 33), (200, 130), (160, 45), (31, 97))
    for ow, oh in sizes:
        cases += [
            (f"resize(width={ow}, height={oh}, method=nearest)", cv2.resize(img, (ow, oh), interpolation=cv2.INTER_NEAREST), 0, "", img),
            (f"resize(width={ow}, height={oh}, method=bilinear)", cv2.resize(img, (ow, oh), interpolation=cv2.INTER_LINEAR), 1, fixed, img),
            (f"resize(width={ow}, height={oh}, method=bicubic)", cv2.resize(img, (ow, oh), interpolation=cv2.INTER_CUBIC), 1, fixed, img),
            (f"resize(width={ow}, height={oh}, method=area)", cv2.resize(img, (ow, oh), interpolation=cv2.INTER_AREA), 1,
             "OpenCV's area weights in f64/f32 rounded half to even; enlarging: its area-bilinear with 11-bit weights", img),
            (f"resize(width={ow}, height={oh}, method=lanczos3)", lanczos3_reference(img, ow, oh), 1,
             "no OpenCV lanczos3 (INTER_LANCZOS4 is 8x8): against a numpy f64 lanczos3", img),
            (f"resize(width={ow}, height={oh}, align_corners=true)", align_corners_reference(img, ow, oh), 1,
             "no OpenCV align_corners: against numpy f64 bilinear at d*(in-1)/(out-1)", img),
        ]
    cases += [
        ("resize(width=48, height=30, method=area)", cv2.resize(even, (48, 30), interpolation=cv2.INTER_AREA), 1,
         "integer factor: OpenCV's resizeAreaFast rounds ties up, as texelflow", even),
        ("resize(width=32, height=20, method=area)", cv2.resize(even, (32, 20), interpolation=cv2.INTER_AREA), 1,
         "integer factor 3", even),
        (f"transform(matrix=[{flat(aff)}])", cv2.warpAffine(img, aff, (w, h), flags=lin, borderMode=const, borderValue=0), 4, warp_why, img),
        ("transform(rotate=30)", cv2.warpAffine(img, rot, (w, h), flags=lin, borderMode=const, borderValue=0), 4, warp_why, img),
        (f"transform(src=[{flat(src_q)}], dst=[{flat(dst_q)}])",
         cv2.warpPerspective(img, persp, (w, h), flags=lin, borderMode=const, borderValue=0), 4, warp_why, img),
    ]
    failures = []
    for spec, want, bound, why, src in cases:
        inp = TMP / "geom_in.png"
        save(inp, src)
        for cpu in (False, True):
            got = texelflow(inp, spec, cpu)
            if got.shape != want.shape:
                failures.append(f"{spec} ({'cpu' if cpu else 'gpu'}): shape {got.shape} vs {want.shape}")
                print(f"FAIL {'cpu' if cpu else 'gpu'} {spec}: shape {got.shape} vs {want.shape}")
                continue
            d = np.abs(got.astype(int) - want.astype(int))
            status = "ok" if d.max() <= bound else "FAIL"
            print(f"{status:4} {'cpu' if cpu else 'gpu'} {spec}: max diff {d.max()}, {(d > 1).mean():.2%} of samples > 1 (bound {bound}{'; ' + why if why else ''})")
            if d.max() > bound:
                failures.append(f"{spec}: {d.max()} > {bound}")
    return failures


def guided_reference(rgba, radius, eps, scale):
    """He, Sun and Tang's guided filter in float64 (OpenCV's core has none; opencv-contrib's
    ximgproc.guidedFilter is not in the test venv): guide I = luminance with GPUImage's weights,
    p = alpha; for scale > 1 the fast variant as texelflow defines it: block means over
    scale x scale (edge pixels replicated past the image), boxes of radius/scale (rounded, at
    least 1) on that grid, bilinear back (pixel centres aligned, edges clamped)."""
    f = rgba.astype(np.float64) / 255.0
    full_i = f[..., 0] * 0.2125 + f[..., 1] * 0.7154 + f[..., 2] * 0.0721
    p = f[..., 3]
    h, w = p.shape
    lw, lh = -(-w // scale), -(-h // scale)
    def down(a):
        a = np.pad(a, ((0, lh * scale - h), (0, lw * scale - w)), mode="edge")
        return a.reshape(lh, scale, lw, scale).mean(axis=(1, 3))
    r = max(1, (radius + scale // 2) // scale)
    box = lambda a: cv2.blur(a, (2 * r + 1, 2 * r + 1), borderType=cv2.BORDER_REPLICATE)
    i, q = down(full_i), down(p)
    mean_i, mean_p = box(i), box(q)
    a = (box(i * q) - mean_i * mean_p) / (box(i * i) - mean_i * mean_i + eps)
    b = mean_p - a * mean_i
    up = lambda v: cv2.resize(box(v), (lw * scale, lh * scale), interpolation=cv2.INTER_LINEAR)[:h, :w]
    out = rgba.copy()
    out[..., 3] = np.clip(np.floor(np.clip(up(a) * full_i + up(b), 0, 1) * 255 + 0.5), 0, 255).astype(np.uint8)
    return out


def compare_guided(img):
    """guided_filter against the float64 reference above, on the test image's noisy alpha and on
    a soft disc matte: the same formulas; texelflow runs in f32, whose cancellation in
    var = mean(I²) - mean(I)² moves alpha by at most a level (bound 1)."""
    failures = []
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    disc = img.copy()
    disc[..., 3] = cv2.blur(np.where((xx - 50) ** 2 + (yy - 30) ** 2 < 400, 255, 0).astype(np.uint8), (9, 9))
    for name, src in (("noisy alpha", img), ("disc matte", disc)):
        path = TMP / f"guided_{name.replace(' ', '_')}.png"
        save(path, src)
        for radius, eps, scale in ((4, 1e-3, 1), (8, 1e-4, 1), (2, 1e-2, 1), (16, 1e-4, 4), (40, 1e-4, 8), (4, 1e-4, 1)):
            want = guided_reference(src, radius, eps, scale)
            spec = f"guided_filter(radius={radius}, eps={eps}, scale={scale})"
            for cpu in (False, True):
                got = texelflow(path, spec, cpu)
                d = int(np.abs(got.astype(int) - want.astype(int)).max())
                ok = d <= 1
                print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} {spec} on {name} vs a float64 numpy guided filter: max diff {d} (bound 1: f32 against float64)")
                if not ok:
                    failures.append(f"{spec} on {name}: {d} > 1")
    return failures


def compare_assessment(img):
    """photo_metrics' sharpness and noise measures against OpenCV on the same luma: the variance of
    cv2.Laplacian(ksize=1) and the mean of cv2.Sobel(ksize=3) gx^2 + gy^2, both with
    BORDER_REPLICATE, and Immerkaer's estimate with cv2.filter2D on the interior. The luma is
    BT.601 rounded exactly, (299 R + 587 G + 114 B + 500) // 1000, computed here in numpy:
    cv2.cvtColor's RGB2GRAY uses 14-bit fixed-point weights and can differ by one level, which
    would compare the colour conversion instead of the operators. Equal up to float64 rounding."""
    failures = []
    rgb = img[..., :3].astype(np.int64)
    y = ((299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2] + 500) // 1000).astype(np.float64)
    lap = cv2.Laplacian(y, cv2.CV_64F, ksize=1, borderType=cv2.BORDER_REPLICATE)
    gx = cv2.Sobel(y, cv2.CV_64F, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE)
    gy = cv2.Sobel(y, cv2.CV_64F, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE)
    k = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float64)
    n = cv2.filter2D(y, cv2.CV_64F, k)[1:-1, 1:-1]
    h, w = y.shape
    want = {
        "laplacian_variance": ("cv2.Laplacian(ksize=1).var()", lap.var()),
        "tenengrad": ("mean of cv2.Sobel gx^2 + gy^2", (gx * gx + gy * gy).mean()),
        "noise_sigma": ("Immerkaer with cv2.filter2D", np.sqrt(np.pi / 2) * np.abs(n).sum() / (6 * (w - 2) * (h - 2))),
    }
    inp = TMP / "assess_in.png"
    save(inp, img)
    for cpu in (False, True):
        got = texelflow_points(inp, "photo_metrics", cpu)
        for key, (what, v) in want.items():
            ok = abs(got[key] - v) <= 1e-9 * max(1.0, abs(v))
            print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} photo_metrics {key} vs {what}: {got[key]:.6f} vs {v:.6f}")
            if not ok:
                failures.append(f"photo_metrics {key}: {got[key]} vs OpenCV {v}")
    return failures


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


def texelflow_points(inp, spec, cpu):
    out = TMP / ("points_cpu.json" if cpu else "points_gpu.json")
    cmd = [BIN, "--straight-alpha"] + (["--cpu"] if cpu else ["--gpu"]) + ["apply", str(inp), "-p", spec, "--data", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"texelflow failed on {spec}: {r.stderr.strip()}")
    return json.loads(out.read_text())


def compare_corners():
    """FAST against cv2.FastFeatureDetector (TYPE_9_16): the same keypoints, exactly, and with
    non-maximum suppression the same scores (OpenCV's keypoint response; without it OpenCV
    leaves the response 0, texelflow still reports the score). The input is grey, so both see
    the same luma. Harris against cv2.cornerHarris, tolerantly: texelflow runs GPUImage's chain
    (Prewitt derivatives of luma, a Gaussian of sigma 2 over the products, k = 0.04, 8-bit
    stages, threshold 0.2 on the 8-bit response, 3x3 non-maximum suppression) where OpenCV uses
    3x3 Sobel derivatives and a 3x3 box sum (blockSize 3): the responses differ in scale and
    smoothing, so the check is that most (80%) of OpenCV's strong corners (response above 5% of
    its maximum, 3x3 local maxima) have a texelflow corner (threshold 0.1) within 1 pixel, and the
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
            got = texelflow_points(inp, spec, cpu)
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
        got = texelflow_points(inp, "harris_corner_detection(threshold=0.1) | corner_points", cpu)["points"]
        mine = np.array([[p["x"], p["y"]] for p in got]).reshape(-1, 2)
        near = lambda a, b: np.abs(a[:, None, :] - b[None, :, :]).max(2).min(1) <= 1 if len(b) else np.zeros(len(a), bool)
        found = float(near(want, mine).mean()) if len(want) else 1.0
        real = float(near(mine, want).mean()) if len(mine) else 0.0
        ok = found >= 0.8 and real >= 0.8
        print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} harris_corner_detection(threshold=0.1) vs cv2.cornerHarris: {found:.0%} of OpenCV's "
              f"{len(want)} strong corners found within 1 px, {real:.0%} of texelflow's {len(mine)} near one of OpenCV's (bound 80%: "
              "Prewitt + Gaussian sigma 2 against Sobel 3x3 + box 3x3)")
        if not ok:
            failures.append(f"harris: {found:.0%} found, {real:.0%} near")
    return failures


def line_scene(w=160, h=120, seed=3):
    """A binary edge map (255 on 0) with five straight lines at various angles and 0.5% noise."""
    rng = np.random.default_rng(seed)
    edges = np.zeros((h, w), np.uint8)
    for p, q in (((5, 10), (150, 100)), ((80, 0), (80, 119)), ((0, 60), (159, 60)), ((10, 115), (140, 5)), ((0, 30), (159, 45))):
        cv2.line(edges, p, q, 255, 1)
    edges[rng.random((h, w)) < 0.005] = 255
    return edges


def compare_hough():
    """hough_line_detection against cv2.HoughLines(edges, 1, pi/180, threshold) on the same binary
    edge map, relative=0 so only OpenCV's absolute threshold (votes strictly above it) applies.
    Same method: θ = 0, 1°, ... 179°, ρ bins of 1 pixel, OpenCV's peak test (more votes than the
    previous ρ and θ bins, at least the next ones, no wrap of θ), order (votes descending, ties by
    θ then ρ: OpenCV's accumulator index) and reported values (ρ = bin × rho, θ = n × theta in float).
    Documented differences: OpenCV's accumulator spans ρ in ±(w + h) where texelflow's spans the
    image's own range (the same bins where ρ exists); OpenCV rounds x cos θ + y sin θ computed in
    float from a float table (its angle accumulated in float) with cvRound (ties to even),
    texelflow floor(v + 1/2) in Q16 fixed point from the exact angle, so a pixel whose ρ lies
    within about 1e-3 of a half may vote one bin over and move a peak. The check: each of
    OpenCV's lines (and the 5 strongest in particular) has a texelflow line within one bin in ρ
    and θ, and the reverse; the report counts exact equals and whether the lists are identical
    (both, on this map)."""
    failures = []
    edges = line_scene()
    inp = TMP / "lines.png"
    cv2.imwrite(str(inp), edges)
    for threshold in (30, 50):
        want = cv2.HoughLines(edges, 1, np.pi / 180, threshold)
        want = [] if want is None else [(float(r), float(t)) for r, t in want[:, 0]]
        spec = f"hough_line_detection(relative=0, threshold={threshold})"
        for cpu in (False, True):
            got = texelflow_points(inp, spec, cpu)
            mine = [(l["rho"], l["theta"]) for l in got["lines"]]
            step = np.pi / 180

            def near(a, b):
                # one bin in ρ and θ, across θ's wrap ((ρ, θ) is (-ρ, θ - π))
                d = abs(a[1] - b[1])
                return (abs(a[0] - b[0]) <= 1 and d <= step * 1.01) or (abs(a[0] + b[0]) <= 1 and abs(d - np.pi) <= step * 1.01)

            exact = len(set(want) & set((float(np.float32(r)), float(np.float32(t))) for r, t in mine))
            missed = [w for w in want if not any(near(w, m) for m in mine)]
            extra = [m for m in mine if not any(near(m, w) for w in want)]
            top = all(near(w, m) for w, m in zip(want[:5], mine[:5])) or all(any(near(w, m) for m in mine[:5]) for w in want[:5])
            ok = not missed and not extra and top and len(want) > 0
            print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} {spec} vs cv2.HoughLines(edges, 1, pi/180, {threshold}): "
                  f"{len(mine)} lines, OpenCV {len(want)}; {exact} equal, {len(missed)} of OpenCV's without one within a bin, "
                  f"{len(extra)} of texelflow's without one; 5 strongest {'match' if top else 'DIFFER'}; "
                  f"lists {'identical' if [(float(np.float32(r)), float(np.float32(t))) for r, t in mine] == want else 'not identical'}")
            if not ok:
                failures.append(f"{spec}: {len(missed)} missed, {len(extra)} extra, top 5 match: {top}")
    return failures


def compare_histograms(img):
    """histogram counts against cv2.calcHist (R, G, B, A: equal); histogram_equalization on a
    grey image against cv2.equalizeHist: texelflow rounds 255 (cdf - cdf_min) / (total - cdf_min)
    half up in integers where OpenCV rounds the f32 product cdf * (255 / (total - cdf_min)) to
    nearest (even on ties), so a level may differ by one where the exact value is a half."""
    failures = []
    inp = TMP / "hist_in.png"
    save(inp, img)
    for cpu in (False, True):
        r = subprocess.run([BIN, "--straight-alpha"] + (["--cpu"] if cpu else ["--gpu"]) + ["apply", str(inp), "--data", "-", "-p", "histogram"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"texelflow failed on histogram: {r.stderr.strip()}")
        h = json.loads(r.stdout)["histogram"]
        for c, name in enumerate("rgba"):
            want = cv2.calcHist([np.ascontiguousarray(img[..., c])], [0], None, [256], [0, 256]).ravel().astype(int)
            ok = list(want) == h[name]
            print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} histogram channel {name} vs cv2.calcHist: {'equal' if ok else 'differ'}")
            if not ok:
                failures.append(f"histogram channel {name} differs from cv2.calcHist")
    # grey images: a low-contrast ramp with noise, and the test image's green channel squeezed
    rng = np.random.default_rng(5)
    greys = {
        "ramp": (np.mgrid[0:61, 0:97][1] // 3 + 70 + rng.integers(0, 9, (61, 97))).astype(np.uint8),
        "squeezed": (img[..., 1].astype(int) // 4 + 100).astype(np.uint8),
    }
    for name, g in greys.items():
        want = cv2.equalizeHist(g)
        gin = TMP / "hist_grey.png"
        save(gin, np.dstack([g, g, g, np.full_like(g, 255)]))
        for cpu in (False, True):
            got = texelflow(gin, "histogram_equalization", cpu)
            d = np.abs(got[..., 0].astype(int) - want.astype(int))
            ok = d.max() <= 1 and (got[..., 0] == got[..., 1]).all() and (got[..., 0] == got[..., 2]).all()
            print(f"{'ok' if ok else 'FAIL':4} {'cpu' if cpu else 'gpu'} histogram_equalization on grey {name} vs cv2.equalizeHist: "
                  f"max diff {d.max()}, {int((d > 0).sum())} pixels differ (bound 1: half-up integer rounding against OpenCV's f32 product)")
            if not ok:
                failures.append(f"histogram_equalization on {name}: max diff {d.max()} from cv2.equalizeHist")
    return failures


main()
