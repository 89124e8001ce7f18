#!/usr/bin/env python3
"""The side-by-side table of every operation texelflow and NVIDIA NPP both have, from one call of
scripts/bench_npp_same.sh (SHARED=1), as BENCHMARKS.md shows it.

Usage: npp_report.py OUT_DIR

- The raced operations (issue 32) come from the paired passes: texelflow_paired_<k>.json
  (texelflow) against npp_same_<k>.tsv (NPP), both on the same random and photo-like pictures.
  Each side takes its best pass per case (the lowest median): the H200's clocks were down in some
  passes (texelflow's probe, the FMA rate right after a case's timed runs, at 11-24 TFLOP/s
  against 40) and some passes were bimodal (a median of 0.49 ms with a minimum of 0.11), on
  either side; the same rule for both.
- The others come from texelflow_shared.json against npp_peer.tsv / npp_color.tsv, each on its
  own picture (texelflow's random image; the peer's noise and gradient).
"""
import json
import os
import sys

d = sys.argv[1]


def load_json(name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else None


def tsv(*names):
    """op -> the lowest median among the files."""
    rows = {}
    for name in names:
        p = os.path.join(d, name)
        if not os.path.exists(p):
            continue
        for line in open(p):
            f = line.rstrip("\n").split("\t")
            if len(f) == 5 and f[0] == "npp":
                try:
                    v = float(f[2])
                except ValueError:
                    continue
                rows[f[1]] = min(v, rows.get(f[1], v))
    return rows


def best_pass(*runs):
    """name -> (median_ms, probe) of the pass with the lowest median."""
    best = {}
    for run in runs:
        if not run:
            continue
        for r in run["results"]:
            old = best.get(r["name"])
            if old is None or r["median_ms"] < old[0]:
                best[r["name"]] = (r["median_ms"], r["probe_tflops"])
    return best


passes = sorted(f for f in os.listdir(d) if f.startswith("texelflow_paired_") and f.endswith(".json"))
paired = best_pass(*(load_json(f) for f in passes))
shared = best_pass(load_json("texelflow_shared.json"))
npp_same = tsv(*sorted(f for f in os.listdir(d) if f.startswith("npp_same_") and f.endswith(".tsv")))
npp = tsv("npp_peer.tsv", "npp_color.tsv")

# raced on the same pictures: texelflow case (without the content tag) -> NPP op
RACED = [
    ("canny_edge_detection gray8 50/150", "canny_gray", "Gray8, σ=0, L2, full hysteresis"),
    ("resize bicubic 1080p->4K", "resize_cubic_up2_rgba", ""),
    ("resize bilinear 4K->1080p", "resize_bilinear_down2_rgba", ""),
    ("histogram", "histogram_256_rgba", "NPP: R, G, B, A; texelflow: R, G, B, Y, A"),
    ("laplacian", "laplace_3x3_c4", ""),
    ("resize area 4K->1080p", "resize_area_down2_rgba", ""),
    ("resize lanczos3 1080p->4K", "resize_lanczos_up2_rgba", ""),
    ("resize bilinear 1080p->4K", "resize_bilinear_up2_rgba", ""),
    ("copy", "copy_d2d", "texelflow's copy kernel; NPP: cudaMemcpy device to device"),
]
# on each side's own pictures: texelflow default case -> NPP op
OTHERS = [
    ("gaussian_blur s=2", "gauss_sigma2_rgba", ""),
    ("gaussian_blur s=8", "gauss_sigma8_rgba", ""),
    ("box_blur 9x9", "box_9x9_rgba", ""),
    ("box_blur 31x31", "box_31x31_rgba", ""),
    ("dilation 3x3", "dilate_3x3_rgba", ""),
    ("dilation 15x15", "dilate_15x15_rgba", ""),
    ("dilation 31x31", "dilate_31x31_rgba", ""),
    ("median_3x3", "median_3x3_rgba", "NPP on the interior only (no border mode)"),
    ("median_5x5", "median_5x5_rgba", "NPP on the interior only (no border mode)"),
    ("bilateral", "bilateral_r5_rgb", "NPP: RGB (3 channels), texelflow: RGBA"),
    ("bilateral gray8", "bilateral_r5_gray", ""),
    ("harris_corner_detection", "harris_gray", "NPP: grey in, response out; texelflow: RGBA in, corners out"),
    ("sobel_edge_detection", "sobel_horiz_rgba", "NPP: one horizontal gradient per channel; texelflow: luminance gradient magnitude"),
    ("reduce", "minmax_rgba", "texelflow: min, max and mean in one pass; NPP: min/max alone"),
    ("reduce", "mean_rgba", "NPP: mean alone"),
    ("to_gray", "rgb_to_gray", ""),
    ("gamma", "lut_1d_rgba", ""),
    ("levels", "lut_1d_rgba", ""),
    ("tone_curve", "lut_1d_rgba", ""),
    ("color_matrix", "colortwist_ac4", ""),
    ("hsb", "colortwist_ac4", ""),
    ("hue", "colortwist_ac4", ""),
    ("sepia", "colortwist_ac4", ""),
    ("rgb", "mulc_c4", ""),
    ("brightness", "addc_c4", ""),
    ("multiply_blend", "mul_c4", ""),
    ("alpha_blend", "alphacomp_over_ac4", ""),
    ("convolution_3x3", "filter_3x3_c4", ""),
    ("sharpen", "sharpen_c4", ""),
]


def verdict(r):
    if r <= 1 / 1.1:
        return "≥ 1.1× faster"
    if r < 1:
        return "faster, < 1.1×"
    return "**slower**"


print("| operation | NPP operation | pictures | texelflow ms | NPP ms | texelflow ÷ NPP | | note |")
print("|---|---|---|---:|---:|---:|---|---|")
for name, op, note in RACED:
    for content in ("random", "photo"):
        t = paired.get(f"{name} [{content}]") if name != "copy" else paired.get("copy")
        n = npp_same.get(f"{op} [{content}]")
        if not t or not n:
            continue
        r = t[0] / n
        print(f"| {name} | {op} | same, {content} | {t[0]:.4f} | {n:.4f} | {r:.2f} | {verdict(r)} | {note} |")
for name, op, note in OTHERS:
    t = shared.get(name)
    n = npp.get(op)
    if not t or not n:
        continue
    r = t[0] / n
    print(f"| {name} | {op} | each its own | {t[0]:.4f} | {n:.4f} | {r:.2f} | {verdict(r)} | {note} |")
