"""Applies a texelflow pipeline to a folder of images with Ray Data and writes the results.

    python python/examples/ray_images.py IN_DIR OUT_DIR \
        --pipeline "gaussian_blur(sigma=2) | sobel_edge_detection" --actors 4 --gpus-per-actor 0.25

On a cluster, run it on the head node (or submit it with `ray job submit`) with IN_DIR and
OUT_DIR on storage every node reads (S3, GCS, NFS); docs/ray.md has the setup.
"""

import argparse
import time

import ray

import texelflow.ray


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="folder (or s3://, gs:// prefix) of images")
    ap.add_argument("output", help="folder to write the results into (PNG)")
    ap.add_argument("--pipeline", "-p", required=True, help='e.g. "gaussian_blur(sigma=2) | sobel_edge_detection"')
    ap.add_argument("--actors", type=int, default=1, help="pipeline actors (each opens the GPU once)")
    ap.add_argument("--gpus-per-actor", type=float, default=0.0, help="Ray GPU reservation per actor (1, or 0.25 for four per GPU)")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--address", default=None, help="Ray cluster address (default: RAY_ADDRESS, else a local Ray)")
    args = ap.parse_args()

    ray.init(address=args.address)
    start = time.perf_counter()
    ds = ray.data.read_images(args.input, mode="RGBA")
    out = texelflow.ray.map_images(ds, args.pipeline, concurrency=args.actors, num_gpus=args.gpus_per_actor, batch_size=args.batch_size)
    out.write_images(args.output, column="image", file_format="png")
    print(f"{args.input} -> {args.output}: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
