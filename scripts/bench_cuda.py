#!/usr/bin/env python3
"""Issue 31's benchmark of data that already lives on the GPU, for the GPU machine, in one call;
prints one JSON object (times in ms, medians unless named otherwise):

- `cuda_4k`: a CUDA uint8 3840x2160x4 torch tensor through `Pipeline.run` (gaussian_blur,
  sigma 2) into a CUDA tensor, each run followed by `torch.cuda.synchronize()` (median of
  `--repeat`, 100 by default); whether memory was shared (no host route) and whether the result
  equals the numpy route's byte for byte; the stream's own time of a call (CUDA events), the
  native split (medians of 50), the Python side alone (the native run left out), and the same on
  a 64x64 tensor (the hand-overs between CUDA and texelflow with next to no GPU work);
- `batch_1080p`: 64 CUDA uint8 1920x1080x4 images (one NHWC tensor) through `Pipeline.run`,
  against torchvision's `gaussian_blur` (uint8 NCHW in and out) and kornia's `gaussian_blur2d`
  (float, with the conversions from and to uint8) on the same tensor on the same GPU, all with
  a 13x13 kernel (3 sigma each side), replicated borders for kornia; synchronised, median of 10;
- `numpy_owned`: numpy -> `Pipeline.run` -> `np.array(out)` (a result the caller owns), against
  torch's pageable copies alone (`torch.from_numpy(a).cuda().cpu().numpy()`), and the cost of
  keeping a result (`np.array(out)`) against copying an ordinary host array of the same size
  (`np.array(a)`): the readback is read at the speed of host memory;
- `kept`: a result still equals its first value after 100 later runs.

kornia, where it is not installed: `--extra-site DIR` as in scripts/bench_python.py.

    python scripts/bench_cuda.py [--repeat 100] [--extra-site /tmp/pf-site] [--out DIR]
"""

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback
import warnings


def med(fn, repeat, warmup, sync):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return {"median": statistics.median(times), "min": min(times), "n": repeat}


def guarded(results, key, fn):
    try:
        results[key] = fn()
    except Exception as e:  # noqa: BLE001 - each part reports its own failure
        results[key] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=4)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--sigma", type=float, default=2.0)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--extra-site")
    ap.add_argument("--wheels", default=".peers/wheels")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.extra_site:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_python import extra_site

        extra_site(args.extra_site, args.wheels)

    import numpy as np
    import torch

    import texelflow

    sync = torch.cuda.synchronize
    spec = f"gaussian_blur(sigma={args.sigma:g})"
    radius = math.ceil(3 * args.sigma)
    k = 2 * radius + 1
    R = {"spec": spec, "torch": torch.__version__, "cuda_device": torch.cuda.get_device_name(0)}
    pipe = texelflow.Pipeline(spec, device="gpu")
    R["texelflow_device"] = pipe.device
    rng = np.random.default_rng(31)

    def cuda_4k():
        a = rng.integers(0, 256, size=(2160, 3840, 4), dtype=np.uint8)
        t = torch.from_numpy(a).cuda()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = pipe.run(t)
        sync()
        r = {
            "shared": not any("host memory" in str(w.message) for w in caught),
            "warnings": [str(w.message) for w in caught],
            "out": f"{type(out).__module__}.{type(out).__name__} {tuple(out.shape)} {out.dtype} {out.device}",
        }
        ref = pipe.run(a)
        r["equal_to_numpy_route"] = bool(np.array_equal(out.cpu().numpy(), ref))
        r["time"] = med(lambda: pipe.run(t), args.repeat, 10, sync)
        r["host_split_last_run"] = pipe._native.last_cuda_times
        # the native side's split, median of each part over 50 runs
        splits = []
        for _ in range(50):
            pipe.run(t)
            sync()
            splits.append(dict(pipe._native.last_cuda_times))
        r["host_split_median"] = {k: statistics.median(s[k] for s in splits) for k in splits[0] if isinstance(splits[0][k], (int, float))}

        # the stream's own time from before the call to after it (CUDA events): the copies,
        # the waits between CUDA and texelflow and texelflow's run, as the GPU saw them
        def stream_time(x):
            ev = []
            for _ in range(args.repeat):
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                pipe.run(x)
                e1.record()
                e1.synchronize()
                ev.append(e0.elapsed_time(e1))
            return {"median": statistics.median(ev), "min": min(ev), "n": len(ev)}

        r["stream_time"] = stream_time(t)
        r["semaphore_note"] = pipe._native.last_cuda_times.get("semaphore_note")
        # the same on a 64x64 image, whose GPU work is next to nothing: what the call and the
        # hand-overs between CUDA and texelflow cost alone
        small = torch.from_numpy(rng.integers(0, 256, size=(64, 64, 4), dtype=np.uint8)).cuda()
        r["small_64_time"] = med(lambda: pipe.run(small), args.repeat, 10, sync)
        r["small_64_stream_time"] = stream_time(small)

        # the Python side alone: the same call with the native run left out
        class NoRun:
            def __init__(self, native):
                self.native = native

            def __getattr__(self, name):
                return getattr(self.native, name)

            def run_cuda(self, *args):
                return None

        native = pipe._native
        pipe._native = NoRun(native)
        try:
            r["python_side_alone"] = med(lambda: pipe.run(t), args.repeat, 10, sync)
        finally:
            pipe._native = native
        # a second tensor between runs: the prepared run is the same, the copies are not
        t2 = torch.from_numpy(rng.integers(0, 256, size=(2160, 3840, 4), dtype=np.uint8)).cuda()
        r["equal_after_other_tensor"] = bool(np.array_equal(pipe.run(t2).cpu().numpy(), pipe.run(t2.cpu().numpy())))
        r["equal_again_first"] = bool(np.array_equal(pipe.run(t).cpu().numpy(), ref))
        r["shared_after_first"] = pipe._native.cuda_share(0) is None
        # texelflow's own path from a pinned host image, for scale (the run without CUDA)
        r["texelflow_numpy_view"] = med(lambda: pipe.run(a), 20, 5, lambda: None)
        r["host_times_numpy_last_run"] = pipe.last_host_times
        r["target_ms"] = 0.25
        # the kernel and copies alone, for scale: a device-to-device copy of the image
        c = torch.empty_like(t)
        r["torch_d2d_copy"] = med(lambda: c.copy_(t), args.repeat, 10, sync)
        return r

    guarded(R, "cuda_4k", cuda_4k)

    def batch_1080p():
        n = args.batch
        a = rng.integers(0, 256, size=(n, 1080, 1920, 4), dtype=np.uint8)
        t = torch.from_numpy(a).cuda()
        r = {"images": n}
        r["texelflow"] = med(lambda: pipe.run(t), 10, 2, sync)
        r["host_split_last_call"] = pipe._native.last_cuda_times
        check = pipe.run(t[:2])
        r["texelflow_equal_to_numpy_route"] = bool(np.array_equal(check[1].cpu().numpy(), pipe.run(a[1])))
        nchw = t.permute(0, 3, 1, 2)
        try:
            from torchvision.transforms.v2 import functional as F
            import torchvision

            r["torchvision"] = med(lambda: F.gaussian_blur(nchw, kernel_size=[k, k], sigma=[args.sigma, args.sigma]), 10, 2, sync)
            r["torchvision"]["version"] = torchvision.__version__
        except Exception as e:  # noqa: BLE001
            r["torchvision"] = {"error": f"{type(e).__name__}: {e}"}
        try:
            import kornia

            def kn():
                out = kornia.filters.gaussian_blur2d(nchw.float(), (k, k), (args.sigma, args.sigma), border_type="replicate")
                return out.round_().clamp_(0, 255).to(torch.uint8)

            r["kornia"] = med(kn, 10, 2, sync)
            r["kornia"]["version"] = kornia.__version__
        except Exception as e:  # noqa: BLE001
            r["kornia"] = {"error": f"{type(e).__name__}: {e}"}
        for peer in ("torchvision", "kornia"):
            if "median" in r.get(peer, {}):
                r[f"speedup_vs_{peer}"] = r[peer]["median"] / r["texelflow"]["median"]
        return r

    guarded(R, "batch_1080p", batch_1080p)

    def numpy_owned():
        a = rng.integers(0, 256, size=(2160, 3840, 4), dtype=np.uint8)
        none = lambda: None  # noqa: E731
        r = {}
        r["texelflow_owned"] = med(lambda: np.array(pipe.run(a)), 20, 5, none)
        r["texelflow_view"] = med(lambda: pipe.run(a), 20, 5, none)
        r["torch_pageable_copies"] = med(lambda: torch.from_numpy(a).cuda().cpu().numpy(), 20, 5, sync)
        r["ratio_owned_to_copies"] = r["texelflow_owned"]["median"] / r["torch_pageable_copies"]["median"]
        r["target_ratio"] = 1.3
        out = pipe.run(a)
        r["keep_result_np_array"] = med(lambda: np.array(out), 20, 3, none)
        host = np.array(out)
        r["copy_host_array_np_array"] = med(lambda: np.array(host), 20, 3, none)
        return r

    guarded(R, "numpy_owned", numpy_owned)

    def kept():
        a = rng.integers(0, 256, size=(512, 640, 4), dtype=np.uint8)
        first = pipe.run(a)
        want = first.copy()
        for i in range(100):
            pipe.run(rng.integers(0, 256, size=(512, 640, 4), dtype=np.uint8))
        t = torch.from_numpy(a).cuda()
        first_t = pipe.run(t)
        want_t = first_t.clone()
        for i in range(100):
            pipe.run(torch.from_numpy(rng.integers(0, 256, size=(512, 640, 4), dtype=np.uint8)).cuda())
        sync()
        return {"numpy_result_kept": bool(np.array_equal(first, want)), "cuda_result_kept": bool(torch.equal(first_t, want_t))}

    guarded(R, "kept", kept)

    def variants():
        """Every tensor layout against the numpy route on the same values (to_gray too, for a
        result of another format)."""
        h, w = 211, 333
        base = rng.integers(0, 256, size=(h, w, 4), dtype=np.uint8)
        out = {}
        cases = {
            "uint8 hwc4": base,
            "uint8 hwc3": base[..., :3].copy(),
            "uint8 hw": base[..., 0].copy(),
            "uint8 hw1": base[..., :1].copy(),
            "uint16 hwc4": (base.astype(np.uint16) * 257),
            "uint16 hw": (base[..., 0].astype(np.uint16) * 257),
            "float32 hwc3": base[..., :3].astype(np.float32) / 255,
            "uint8 hwc4 column slice": base[:, 7:300],
        }
        for spec2 in (spec, "to_gray"):
            p = texelflow.Pipeline(spec2, device="gpu")
            for name, a in cases.items():
                key = f"{spec2} / {name}"
                try:
                    t = torch.from_numpy(np.ascontiguousarray(base))[:, 7:300].cuda() if "slice" in name else torch.from_numpy(a).cuda()
                    got = p.run(t).cpu().numpy()
                    want = p.run(a)
                    out[key] = {"equal": bool(np.array_equal(got, want)), "shape": list(got.shape), "dtype": str(got.dtype)}
                    if got.dtype.kind == "f" and got.shape == want.shape:
                        # floats: the division by 65535 or 255 on the GPU may differ in the last bit
                        out[key]["max_abs_diff"] = float(np.abs(got.astype(np.float64) - want).max())
                except Exception as e:  # noqa: BLE001
                    out[key] = {"error": f"{type(e).__name__}: {e}"}
            try:
                chw = torch.from_numpy(base).cuda().permute(2, 0, 1).contiguous()
                got = p.run(chw, channels_first=True).permute(1, 2, 0).cpu().numpy()
                out[f"{spec2} / uint8 chw4"] = {"equal": bool(np.array_equal(np.squeeze(got), np.squeeze(p.run(base))))}
            except Exception as e:  # noqa: BLE001
                out[f"{spec2} / uint8 chw4"] = {"error": f"{type(e).__name__}: {e}"}
            try:
                half = torch.from_numpy(base.astype(np.float32) / 255).cuda().half()
                got = p.run(half).float().cpu().numpy()
                want = p.run(half.float().cpu().numpy())
                out[f"{spec2} / float16 hwc4"] = {"max_abs_diff": float(np.abs(got - want).max())}
            except Exception as e:  # noqa: BLE001
                out[f"{spec2} / float16 hwc4"] = {"error": f"{type(e).__name__}: {e}"}
            try:
                import cupy

                got = cupy.asnumpy(p.run(cupy.asarray(base)))
                out[f"{spec2} / cupy uint8 hwc4"] = {"equal": bool(np.array_equal(got, p.run(base)))}
            except Exception as e:  # noqa: BLE001
                out[f"{spec2} / cupy uint8 hwc4"] = {"error": f"{type(e).__name__}: {e}"}
        return out

    guarded(R, "variants", variants)

    text = json.dumps(R, indent=1)
    print(text)
    out = args.out or os.environ.get("OUT")
    if out and out != "-":
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "cuda.json"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
