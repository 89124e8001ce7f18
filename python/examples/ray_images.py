"""Applies a texelflow pipeline to a folder of images on a Ray cluster, one actor per GPU, and
writes each result under its input's name (as `texelflow apply IN --out-dir OUT` names them).

    python python/examples/ray_images.py IN_DIR OUT_DIR \
        --pipeline "gaussian_blur(sigma=2) | sobel_edge_detection" --actors 4 --gpus-per-actor 1

Each actor opens the GPU Ray gave it (Ray sets CUDA_VISIBLE_DEVICES; texelflow opens the Vulkan
adapter of that GPU) and runs its share of the files through texelflow's own batch: decode and
encode on the GPU where it can, several files in flight. On a small machine the actors reserve
a fraction of a CPU each, so that Ray can still list and hand out the files; asking for more than
the cluster has is refused at once, in one line. On a cluster, run it on the head node (or
submit it with `ray job submit`) with IN_DIR and OUT_DIR on storage every node reads (NFS);
docs/ray.md has the setup.
"""

import argparse
import logging
import sys
import time

import ray

import texelflow.ray


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="folder of images (or files)", nargs="+")
    ap.add_argument("output", help="folder to write the results into")
    ap.add_argument("--pipeline", "-p", required=True, help='e.g. "gaussian_blur(sigma=2) | sobel_edge_detection"')
    ap.add_argument("--name", default="{stem}.{ext}", help="output file name: {stem}, {name}, {ext} (default {stem}.{ext})")
    ap.add_argument("--recursive", "-r", action="store_true", help="descend into subfolders (kept under OUTPUT)")
    ap.add_argument("--overwrite", action="store_true", help="replace outputs that exist")
    ap.add_argument("--actors", type=int, default=1, help="pipeline actors (each opens its GPU once)")
    ap.add_argument("--gpus-per-actor", type=float, default=0.0, help="Ray GPU reservation per actor (1: an actor per GPU)")
    ap.add_argument("--batch-size", type=int, default=8, help="files handed to an actor at once")
    ap.add_argument("--address", default=None, help="Ray cluster address (default: RAY_ADDRESS, else a local Ray)")
    args = ap.parse_args()

    ray.init(address=args.address, log_to_driver=False, logging_level=logging.WARNING)
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    start = time.perf_counter()
    try:
        r = texelflow.ray.apply_files(
            args.input, args.output, args.pipeline,
            name=args.name, recursive=args.recursive, overwrite=args.overwrite,
            concurrency=args.actors, num_gpus=args.gpus_per_actor, batch_size=args.batch_size,
        )
    except (ValueError, OSError) as e:
        sys.exit(f"error: {e}")
    wall = time.perf_counter() - start
    for path, why in r["failed"]:
        print(f"failed: {path}: {why}", file=sys.stderr)
    on = ", ".join(f"{n} on {d}" for d, n in sorted(r["devices"].items()))
    print(f"{r['done']} written, {len(r['failed'])} failed in {wall:.1f} s ({r['done'] / wall:.1f} images/s; {on})")
    sys.exit(1 if r["failed"] else 0)


if __name__ == "__main__":
    main()
