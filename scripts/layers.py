#!/usr/bin/env python3
"""The layer rule of crates/texelflow/src (docs/ARCHITECTURE.md): every top-level module has a
layer, and no file imports (`crate::X`) a module of a higher layer. Prints each upward import
as FILE:LINE: FROM (layer) -> TO (layer), and exits 1 if there is one; also fails on a
top-level module with no layer, so a new module must be placed.

    scripts/layers.py [SRC_DIR]
"""
import os
import re
import sys

# lowest first; a module may import its own layer and the ones below
LAYERS = [
    # the types every layer shares: errors, parts of images, images, values, limits, and how
    # every input file is opened (input.rs)
    ("data", ["error", "region", "image", "value", "limits", "input"]),
    # device, buffers, kernels, WGSL templating, uniforms
    ("runtime", ["runtime"]),
    # graphs, parameters, planning, fusion, execution, tracing; filters only through the `Filter` trait
    ("graph", ["graph"]),
    # the shapes, the families, the catalogue, and `extend` (what outside filters need)
    ("filters", ["filters", "registry", "extend"]),
    # files: codecs, rows, metadata
    ("io", ["io"]),
    # what is built from all of them: assessment, JSON reports, video (the benchmark harness is
    # a crate of its own, crates/texelflow-bench, on `trace`)
    ("applications", ["assess", "batch", "json", "video"]),
]
LAYER_OF = {m: i for i, (_, ms) in enumerate(LAYERS) for m in ms}
# modules re-exported at the crate root (lib.rs), counted as the module they live in
ALIASES = {"params": "graph", "trace": "graph", "registry": "filters", "histogram": "value"}


def top_modules(src):
    for e in sorted(os.listdir(src)):
        if e.endswith(".rs") and e not in ("lib.rs", "main.rs"):
            yield e[:-3], os.path.join(src, e)
        elif os.path.isdir(os.path.join(src, e)):
            yield e, os.path.join(src, e)


def files_of(path):
    if os.path.isdir(path):
        for root, _, fs in os.walk(path):
            for f in sorted(fs):
                if f.endswith(".rs"):
                    yield os.path.join(root, f)
    else:
        yield path


def imports(text, mods):
    """(line, module) for every `crate::m` path, also inside `crate::{a, b::c}` groups; comments
    and a file's trailing `#[cfg(test)] mod` are skipped (tests may reach anywhere)."""
    text = re.sub(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{.*", "", text, flags=re.S)
    for n, line in enumerate(text.splitlines(), 1):
        code = re.sub(r"//.*", "", line)
        for t in re.findall(r"\bcrate::(\w+)", code):
            t = ALIASES.get(t, t)
            if t in mods:
                yield n, t
    # groups may span lines
    for m in re.finditer(r"\bcrate::\{([^}]*)\}", re.sub(r"//[^\n]*", "", text)):
        n = text.count("\n", 0, m.start()) + 1
        for t in re.findall(r"(?:^|,)\s*(\w+)", m.group(1)):
            t = ALIASES.get(t, t)
            if t in mods:
                yield n, t


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../crates/texelflow/src")
    mods = dict(top_modules(src))
    bad = []
    for m in mods:
        if m not in LAYER_OF:
            bad.append(f"{m}: a top-level module with no layer (add it to LAYERS in scripts/layers.py)")
    for m, path in mods.items():
        for f in files_of(path):
            text = open(f, encoding="utf-8").read()
            for n, t in sorted(set(imports(text, mods))):
                if t != m and m in LAYER_OF and t in LAYER_OF and LAYER_OF[t] > LAYER_OF[m]:
                    bad.append(f"{os.path.relpath(f, src)}:{n}: {m} ({LAYERS[LAYER_OF[m]][0]}) -> {t} ({LAYERS[LAYER_OF[t]][0]})")
    for b in bad:
        print(b)
    print(f"layers: {len(mods)} modules, {len(bad)} upward imports", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
