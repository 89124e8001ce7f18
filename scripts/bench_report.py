#!/usr/bin/env python3
"""Turns one device call's results (texelflow.json, npp.tsv, py_peers.tsv) into the
BENCHMARKS.md tables and the bar chart (the chart needs matplotlib).

Usage: bench_report.py RESULTS_DIR [chart.png]

RESULTS_DIR is the run's folder scripts/bench_device.sh wrote, out/bench/<run>/ (git-ignored). Runs
before the folder left the repository are in git history: `git archive fec4003 bench/results/<run> |
tar -x -C /tmp`; the bench JSON of a run made before the rename must be copied to texelflow.json."""
import json, sys, os

d = sys.argv[1]
chart = sys.argv[2] if len(sys.argv) > 2 else None
pf = json.load(open(os.path.join(d, "texelflow.json")))
copy = pf["copy_ms"]

def tsv(name):
    rows = {}
    p = os.path.join(d, name)
    if os.path.exists(p):
        for line in open(p):
            f = line.rstrip("\n").split("\t")
            if len(f) == 5:
                try:
                    rows[(f[0], f[1])] = (float(f[2]), float(f[3]), float(f[4]))
                except ValueError:
                    pass
    return rows

npp = tsv("npp.tsv")
py = tsv("py_peers.tsv")
npp_copy = npp.get(("npp", "copy_d2d"), (None,))[0]

# texelflow case -> (NPP op, note)
PAIRS = {
    "copy": ("copy_d2d", ""),
    "gaussian_blur s=2": ("gauss_sigma2_rgba", ""),
    "gaussian_blur s=8": ("gauss_sigma8_rgba", ""),
    "box_blur 9x9": ("box_9x9_rgba", ""),
    "box_blur 31x31": ("box_31x31_rgba", ""),
    "dilation 3x3": ("dilate_3x3_rgba", ""),
    "dilation 15x15": ("dilate_15x15_rgba", ""),
    "dilation 31x31": ("dilate_31x31_rgba", ""),
    "sobel_edge_detection": ("sobel_horiz_rgba", "NPP: one horizontal gradient per channel; texelflow: luminance gradient magnitude"),
    "histogram": ("histogram_256_rgba", "NPP: R,G,B,A; texelflow: R,G,B,Y"),
    "reduce": ("minmax_rgba", "texelflow computes min, max and mean in one pass; NPP min/max alone"),
    "resize 4K->1080p": ("resize_bilinear_down2_rgba", ""),
    "resize 1080p->4K": ("resize_bilinear_up2_rgba", ""),
}

print(f"Adapter: {pf['adapter']} ({pf['backend']}), driver {pf['driver']} {pf['driver_info']}; "
      f"{pf['width']}x{pf['height']} RGBA8, {pf['sets']} rotating buffer sets, median of {-(-pf['runs']//pf['sets'])*pf['sets']} runs.\n")
print(f"Copy kernel: texelflow {copy:.4f} ms" + (f", NPP (cudaMemcpy D2D) {npp_copy:.4f} ms" if npp_copy else "") + "\n")
print("| operation | texelflow ms | GB/s | × copy | NPP ms | texelflow / NPP | note |")
print("|---|---:|---:|---:|---:|---:|---|")
bars = []
for r in pf["results"]:
    name = r["name"]
    op, note = PAIRS.get(name, (None, ""))
    n = npp.get(("npp", op)) if op else None
    ratio = r["median_ms"] / n[0] if n else None
    print(f"| {name} | {r['median_ms']:.4f} | {r['gbps']:.0f} | {r['x_copy']:.2f} | "
          f"{'' if not n else f'{n[0]:.4f}'} | {'' if ratio is None else f'{ratio:.2f}'} | {note} |")
    if n:
        bars.append((name, r["median_ms"], n[0]))
    if name == "reduce" and ("npp", "mean_rgba") in npp:
        m = npp[("npp", "mean_rgba")][0]
        print(f"| reduce vs NPP mean | {r['median_ms']:.4f} | | | {m:.4f} | {r['median_ms']/m:.2f} | NPP mean alone |")
        bars.append(("reduce vs mean", r["median_ms"], m))

if py:
    print("\nOther peers, same call (median ms):\n")
    print("| peer | operation | ms |")
    print("|---|---|---:|")
    for (peer, op), (med, mn, b) in sorted(py.items()):
        print(f"| {peer} | {op} | {med:.4f} |")

if chart and bars:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 5))
    xs = range(len(bars))
    ax.bar([x - 0.2 for x in xs], [b[1] for b in bars], 0.4, label="texelflow (wgpu/Vulkan)")
    ax.bar([x + 0.2 for x in xs], [b[2] for b in bars], 0.4, label="NVIDIA NPP")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([b[0] for b in bars], rotation=35, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("ms (median, log scale)")
    ax.set_title(f"{pf['adapter']}, {pf['width']}x{pf['height']} RGBA8, same device call")
    ax.legend()
    fig.tight_layout()
    fig.savefig(chart, dpi=110)
