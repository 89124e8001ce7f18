#!/usr/bin/env python3
"""Issue 19's benchmark of the Python bindings, for the GPU machine, in one call; prints one
JSON object (times in ms, medians of `--repeat` runs after `--warmup` runs, unless named
otherwise):

- copies alone: numpy -> GPU -> numpy of one RGBA8 image through torch, from pinned buffers
  (`torch.empty(..., pin_memory=True)`, filled once: the target's yardstick), the same with
  the image written into the pinned buffer before each copy, and from pageable numpy;
- texelflow numpy -> gaussian_blur(sigma) -> numpy: `texelflow.apply` (parses the spec each
  call), a reused `Pipeline.run`, the same plus an owned copy of the result (`np.array(out)`),
  the host-side split of the runs (gather into staging, wait, map), and `Pipeline.run` with
  the upload in 1, 2, 4 (the default) and 8 strips (`TEXELFLOW_UPLOAD_STRIPS`);
- texelflow from pinned memory (`Pipeline.input_array`: the array is the device's upload
  staging buffer, the upload is the GPU's copy alone): the array filled once and `run` on it
  `--repeat` times (like for like with the yardstick, which also starts in pinned memory), and
  separately `np.copyto` of a new image into it before each `run` (with the copy's own time);
- the same blur from numpy to numpy with torchvision and kornia on the GPU (13x13 kernel for
  sigma 2, as `ceil(3 sigma)` each side), uint8 in and out;
- `Pipeline.run_batch` on `--batch` distinct images: images/s for several `in_flight`;
- Ray Data (optional: needs `ray`): `texelflow.ray.map_images` over the same images with 1,
  2 and 4 actors sharing the one GPU (`num_gpus` = 1/actors), images/s, actor start included.

The target (issue 19): texelflow per image <= 1.3 x the pinned copies alone, and faster than
torchvision and kornia from numpy. The verdict judges the pinned path filled once against the
pinned copies filled once (both start from pinned memory), names the path it used, and also
gives the ratios of the other paths (numpy in: `Pipeline.run`; a new image each time: copyto
+ run against torch's copies with the same fill).

kornia, where it is not installed: `--extra-site DIR` adds DIR to `sys.path`, after first
installing into it, offline, the kornia and kornia_rs wheels found in `--wheels`
(default `.peers/wheels`; `pip install --no-index --no-deps --target DIR ...`, or unzipped
where pip fails: kornia needs only kornia_rs, numpy and torch).

    python scripts/bench_python.py [--size 3840x2160] [--sigma 2] [--repeat 20] [--batch 64] [--no-ray] [--extra-site /tmp/pf-site] [--out DIR]

The JSON goes to stdout and to `python.json` in the run's folder: `--out DIR`, else `$OUT`, else
`out/bench/$RUN/` (git-ignored; RUN defaults to the UTC date and time); `--out -` for stdout only.
"""

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback


def median_ms(fn, repeat, warmup, sync=lambda: None):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return {"median": statistics.median(times), "min": min(times)}


def guarded(results, key, fn):
    """Runs one part; a missing package or a failure is reported in the JSON, not fatal."""
    try:
        results[key] = fn()
    except Exception as e:  # noqa: BLE001 - each part reports its own failure
        results[key] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=3)}


def extra_site(site, wheels):
    """Installs the kornia wheels in `wheels` into `site` unless kornia is there already (no
    index, no dependencies: kornia needs kornia_rs, numpy and torch), and appends `site` to
    sys.path (after the system's packages, so that their torch and numpy are the ones used)."""
    import glob
    import os
    import subprocess

    os.makedirs(site, exist_ok=True)
    note = "kornia already in --extra-site"
    if not os.path.isdir(os.path.join(site, "kornia")):
        found = sorted(glob.glob(os.path.join(wheels, "kornia-*.whl"))) + sorted(glob.glob(os.path.join(wheels, "kornia_rs-*.whl")))
        if not found:
            return f"no kornia wheels in {wheels}"
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--no-deps", "--target", site, *found]
        r = subprocess.run(cmd, capture_output=True, text=True)
        names = ", ".join(os.path.basename(w) for w in found)
        if r.returncode == 0:
            note = f"pip installed {names}"
        else:
            # no pip (or it refused): a wheel is a zip laid out for site-packages, and these
            # two have no scripts or data to place elsewhere
            import zipfile

            for w in found:
                zipfile.ZipFile(w).extractall(site)
            note = f"unzipped {names} (pip failed: {r.stderr.strip()[-300:]})"
    sys.path.append(site)
    return note


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--sigma", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--extra-site", help="a directory for kornia (installed into it from --wheels when missing), added to sys.path")
    ap.add_argument("--wheels", default=".peers/wheels", help="where the kornia and kornia_rs wheels are (for --extra-site)")
    ap.add_argument("--out", help="folder for python.json (default: $OUT, else out/bench/$RUN); '-': stdout only")
    args = ap.parse_args()
    extra_site_note = extra_site(args.extra_site, args.wheels) if args.extra_site else None
    width, height = (int(v) for v in args.size.lower().split("x"))

    import numpy as np

    import texelflow

    rng = np.random.default_rng(19)
    img = rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    spec = f"gaussian_blur(sigma={args.sigma:g})"
    radius = math.ceil(3 * args.sigma)
    ksize = 2 * radius + 1
    R = {
        "size": f"{width}x{height} rgba8",
        "spec": spec,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    guarded(R, "texelflow_device", lambda: texelflow.device_name("gpu"))
    if extra_site_note is not None:
        R["extra_site"] = {"path": args.extra_site, "note": extra_site_note}

    # --- copies alone (torch) ---
    torch = None
    try:
        import torch as _torch

        torch = _torch if _torch.cuda.is_available() else None
        R["torch"] = _torch.__version__
        R["cuda_device"] = _torch.cuda.get_device_name(0) if torch else "no CUDA"
    except ImportError as e:
        R["torch"] = f"missing: {e}"

    if torch is not None:
        sync = torch.cuda.synchronize

        def pinned_copies():
            host_in = torch.empty((height, width, 4), dtype=torch.uint8, pin_memory=True)
            host_in.numpy()[:] = img
            host_out = torch.empty_like(host_in, pin_memory=True)
            dev = torch.empty((height, width, 4), dtype=torch.uint8, device="cuda")

            def once():
                dev.copy_(host_in, non_blocking=True)
                host_out.copy_(dev, non_blocking=True)

            r = median_ms(once, args.repeat, args.warmup, sync)
            r["target_ms_1.3x"] = 1.3 * r["median"]
            return r

        def pageable_copies():
            return median_ms(lambda: torch.from_numpy(img).cuda().cpu().numpy(), args.repeat, args.warmup, sync)

        def pinned_copies_with_fill():
            # the same, with a new image written into the pinned buffer each time (the
            # yardstick of texelflow's copyto + run path)
            host_in = torch.empty((height, width, 4), dtype=torch.uint8, pin_memory=True)
            host_out = torch.empty_like(host_in, pin_memory=True)
            dev = torch.empty((height, width, 4), dtype=torch.uint8, device="cuda")
            staged = host_in.numpy()

            def once():
                np.copyto(staged, img)
                dev.copy_(host_in, non_blocking=True)
                host_out.copy_(dev, non_blocking=True)

            return median_ms(once, args.repeat, args.warmup, sync)

        guarded(R, "copies_pinned_h2d_d2h", pinned_copies)
        guarded(R, "copies_pinned_fill_h2d_d2h", pinned_copies_with_fill)
        guarded(R, "copies_pageable_numpy", pageable_copies)

    # --- texelflow ---
    def pf_apply():
        return median_ms(lambda: texelflow.apply(img, spec, device="gpu"), args.repeat, args.warmup)

    pipe = texelflow.Pipeline(spec, device="gpu")
    kept = {}

    def pf_run():
        def once():
            # replacing the previous result frees it: its read-back buffer goes back to the pool
            kept["out"] = pipe.run(img)

        r = median_ms(once, args.repeat, args.warmup)
        hosts = []
        for _ in range(args.repeat):
            kept["out"] = pipe.run(img)
            hosts.append(pipe.last_host_times)
        r["host_split_median"] = {k: statistics.median(h[k] for h in hosts) for k in hosts[0]}
        return r

    def pf_run_copy():
        def once():
            kept["out"] = np.array(pipe.run(img))

        return median_ms(once, args.repeat, args.warmup)

    def pf_strips():
        # the upload in strips (gather overlapping the DMA): the default (4) against others
        import os

        out = {}
        for strips in ("1", "2", "4", "8"):
            os.environ["TEXELFLOW_UPLOAD_STRIPS"] = strips
            out[f"strips_{strips}"] = pf_run()
        os.environ.pop("TEXELFLOW_UPLOAD_STRIPS", None)
        return out

    img2 = rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8)

    def pf_pinned():
        # the array is the device's upload staging buffer: filled once, then run on
        pinned = pipe.input_array(img.shape, img.dtype)
        np.copyto(pinned, img)
        kept["out"] = pipe.run(pinned)
        r = {"is_pinned": texelflow.is_pinned(pinned), "equal_to_numpy_run": bool(np.array_equal(kept["out"], pipe.run(img)))}

        def once():
            kept["out"] = pipe.run(pinned)

        r.update(median_ms(once, args.repeat, args.warmup))
        hosts = []
        for _ in range(args.repeat):
            kept["out"] = pipe.run(pinned)
            hosts.append(pipe.last_host_times)
        r["host_split_median"] = {k: statistics.median(h[k] for h in hosts) for k in hosts[0]}
        return r

    def pf_pinned_copyto():
        # a new image written into the pinned array before each run (alternating two images)
        pinned = pipe.input_array(img.shape, img.dtype)
        sources = (img, img2)
        state = {"i": 0, "copy": []}

        def once():
            state["i"] += 1
            t0 = time.perf_counter()
            np.copyto(pinned, sources[state["i"] % 2])
            state["copy"].append((time.perf_counter() - t0) * 1e3)
            kept["out"] = pipe.run(pinned)

        r = median_ms(once, args.repeat, args.warmup)
        r["np_copyto_median"] = statistics.median(state["copy"][args.warmup:])
        r["is_pinned"] = texelflow.is_pinned(pinned)
        return r

    guarded(R, "texelflow_apply", pf_apply)
    guarded(R, "texelflow_pipeline_run", pf_run)
    guarded(R, "texelflow_pipeline_run_plus_owned_copy", pf_run_copy)
    guarded(R, "texelflow_pipeline_run_by_upload_strips", pf_strips)
    guarded(R, "texelflow_pinned_input_filled_once_run", pf_pinned)
    guarded(R, "texelflow_pinned_input_copyto_then_run", pf_pinned_copyto)
    kept.clear()

    # --- torchvision, kornia (GPU, from numpy to numpy) ---
    if torch is not None:
        sync = torch.cuda.synchronize

        def tv():
            import torchvision
            from torchvision.transforms.v2 import functional as F

            def once():
                t = torch.from_numpy(img).cuda().permute(2, 0, 1)
                out = F.gaussian_blur(t, kernel_size=[ksize, ksize], sigma=[args.sigma, args.sigma])
                return out.permute(1, 2, 0).cpu().numpy()

            r = median_ms(once, args.repeat, args.warmup, sync)
            r["version"] = torchvision.__version__
            return r

        def kn():
            import kornia

            def once():
                t = torch.from_numpy(img).cuda().permute(2, 0, 1)[None].float()
                out = kornia.filters.gaussian_blur2d(t, (ksize, ksize), (args.sigma, args.sigma), border_type="replicate")
                return out.round_().clamp_(0, 255).to(torch.uint8)[0].permute(1, 2, 0).cpu().numpy()

            r = median_ms(once, args.repeat, args.warmup, sync)
            r["version"] = kornia.__version__
            return r

        guarded(R, "torchvision_gaussian_blur_from_numpy", tv)
        guarded(R, "kornia_gaussian_blur2d_from_numpy", kn)

    # --- run_batch ---
    images = [rng.integers(0, 256, size=(height, width, 4), dtype=np.uint8) for _ in range(args.batch)]

    def batch():
        out = {}
        pipe.run_batch(images[:4], in_flight=4)  # warm
        for in_flight in (1, 2, 4, 8):
            t0 = time.perf_counter()
            results = pipe.run_batch(images, in_flight=in_flight)
            wall = time.perf_counter() - t0
            del results
            out[f"in_flight_{in_flight}"] = {"images_per_s": len(images) / wall, "ms_per_image": wall * 1e3 / len(images)}
        return out

    guarded(R, f"run_batch_{args.batch}", batch)

    # --- Ray Data ---
    if args.no_ray:
        R["ray"] = "skipped (--no-ray)"
    else:
        def ray_part():
            import ray

            import texelflow.ray as pfray

            ray.init(num_gpus=1, include_dashboard=False, log_to_driver=False, object_store_memory=max(200 << 20, min(16 << 30, 6 * len(images) * img.nbytes)))
            try:
                out = {"ray": ray.__version__}
                ds = ray.data.from_numpy(np.stack(images)).materialize()
                for actors in (1, 2, 4):
                    t0 = time.perf_counter()
                    res = pfray.map_images(ds, spec, column="data", concurrency=actors, num_gpus=1.0 / actors, batch_size=8, device="gpu").materialize()
                    wall = time.perf_counter() - t0
                    assert res.count() == len(images)
                    out[f"actors_{actors}"] = {"images_per_s": len(images) / wall, "wall_s": wall, "note": "actor start (device open, kernel compile) included"}
                    del res
                return out
            finally:
                ray.shutdown()

        guarded(R, "ray_data", ray_part)

    # --- verdict ---
    def med(key):
        v = R.get(key)
        return v["median"] if isinstance(v, dict) and "median" in v else None

    # Like for like: the yardstick's data start in pinned memory, filled once; so does the
    # pinned path filled once. Without it (a failure), the best numpy path stands in, said so.
    paths = [
        ("texelflow_pinned_input_filled_once_run", "copies_pinned_h2d_d2h", "pinned input filled once, run (data start in pinned memory, as the yardstick's)"),
        ("texelflow_pipeline_run", "copies_pinned_h2d_d2h", "Pipeline.run from a numpy array (includes the host copy into staging the yardstick does not do)"),
    ]
    verdict = {}
    yard = med("copies_pinned_h2d_d2h")
    for key, base, what in paths:
        if med(key) is not None:
            verdict.update({"path": key, "what": what, "texelflow_per_image_ms": med(key)})
            if yard is not None:
                verdict["ratio_to_pinned_copies"] = med(key) / yard
                verdict["meets_1.3x"] = verdict["ratio_to_pinned_copies"] <= 1.3
            break
    others = {}
    for key, base in (
        ("texelflow_pipeline_run", "copies_pinned_h2d_d2h"),
        ("texelflow_pinned_input_copyto_then_run", "copies_pinned_fill_h2d_d2h"),
        ("texelflow_pinned_input_copyto_then_run", "copies_pinned_h2d_d2h"),
    ):
        if med(key) is not None and med(base) is not None:
            others[f"{key}/{base}"] = med(key) / med(base)
    if others:
        verdict["other_ratios"] = others
    numpy_path = med("texelflow_pipeline_run")
    for k in ("torchvision_gaussian_blur_from_numpy", "kornia_gaussian_blur2d_from_numpy"):
        if numpy_path is not None and med(k) is not None:
            # both from numpy arrays: texelflow's numpy path against them
            verdict[f"faster_than_{k.split('_')[0]}_from_numpy"] = numpy_path < med(k)
    R["verdict"] = verdict
    json.dump(R, sys.stdout, indent=1)
    print()
    out_dir = args.out or os.environ.get("OUT") or os.path.join("out", "bench", os.environ.get("RUN") or time.strftime("%Y%m%d-%H%M%S", time.gmtime()))
    if out_dir != "-":
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "python.json"), "w") as f:
            json.dump(R, f, indent=1)
            f.write("\n")
        print(f"written: {os.path.join(out_dir, 'python.json')}", file=sys.stderr)


if __name__ == "__main__":
    main()
