#!/usr/bin/env python3
"""Hashes the output of every registry filter, as `list --examples` runs it, on the GPU and on
the CPU reference: a before/after proof that a change of structure changed no output.

    scripts/registry_hashes.py BINARY OUT.txt [--inputs DIR]

Each filter's example command runs on two small images of awkward size made from
assets/sample.png (made once with BINARY into DIR, default target/registry-inputs, and reused by
later runs so that two binaries see the same bytes), with the example's default parameters and
again with `--straight-alpha`. Every output file (image or JSON) is hashed; a failing command
records its first error line. Compare two runs with `diff`.
"""
import hashlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, check=True):
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"})
    if check and p.returncode != 0:
        sys.exit(f"registry_hashes: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return p


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    binary, out = args[0], Path(args[1])
    inputs = Path(args[args.index("--inputs") + 1]) if "--inputs" in args else ROOT / "target/registry-inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    main_img, other_img = inputs / "in.png", inputs / "other.png"
    sample = str(ROOT / "assets/sample.png")
    if not main_img.exists():
        run([binary, "--cpu", "apply", sample, str(main_img), "-p", "resize(width=157, height=101)"])
        run([binary, "--cpu", "apply", sample, str(other_img), "-p", "flip | resize(width=157, height=101) | hue(hue=40)"])
    cube = inputs / "warm.cube"
    if not cube.exists():
        n = 5
        rows = [f"{min(1.0, r / (n - 1) * 1.1):.6f} {g / (n - 1) * 0.9:.6f} {b / (n - 1):.6f}"
                for b in range(n) for g in range(n) for r in range(n)]
        cube.write_text(f"LUT_3D_SIZE {n}\n" + "\n".join(rows) + "\n")
    lut = ROOT / "crates/texelflow/luts/amatorka.png"
    work = inputs / ("work-" + out.stem)
    work.mkdir(exist_ok=True)
    lines = run([binary, "list", "--examples"]).stdout.splitlines()
    results = []
    for line in lines:
        name, cmd = line.split("\t", 1)
        words = shlex.split(cmd)[1:]
        for variant, extra in (("gpu", []), ("cpu", ["--cpu"]), ("gpu-straight", ["--straight-alpha"])):
            outputs = []
            argv = [binary] + extra
            for w in words:
                if w == "in.png":
                    argv.append(str(main_img))
                elif w.startswith("out."):
                    o = work / f"{name}-{variant}{Path(w).suffix}"
                    if o.exists():
                        o.unlink()
                    outputs.append(o)
                    argv.append(str(o))
                else:
                    argv.append(w.replace("other.png", str(other_img)).replace("lut.png", str(lut)).replace("file.cube", str(cube)))
            p = run(argv, check=False)
            if p.returncode != 0:
                err = (p.stderr.strip().splitlines() or ["?"])[-1]
                results.append(f"{name}\t{variant}\tERR {err}")
                continue
            digest = hashlib.sha256(b"".join(o.read_bytes() for o in outputs)).hexdigest()[:24]
            results.append(f"{name}\t{variant}\t{digest}")
    out.write_text("\n".join(results) + "\n")
    errs = sum(1 for r in results if "\tERR " in r)
    print(f"registry_hashes: {len(lines)} filters, {len(results)} runs, {errs} errors -> {out}")


if __name__ == "__main__":
    main()
