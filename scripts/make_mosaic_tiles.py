#!/usr/bin/env python3
"""Writes assets/mosaic_tiles.png, the tile set for `mosaic(tiles=...)`: an 8x8 grid of 16x16
tiles, row-major, tile k a white dot on black covering 1 - k / 63 of the tile (clipped to it,
edges antialiased by 4x4 supersampling), so brighter cells (earlier tiles) get larger dots.
Standard library only."""
import math
import struct
import sys
import zlib

TILE, GRID, SS = 16, 8, 4


def coverage(k, px, py):
    area = (1.0 - k / (GRID * GRID - 1)) * TILE * TILE
    r = math.sqrt(area / math.pi)
    hits = 0
    for sy in range(SS):
        for sx in range(SS):
            x = px + (sx + 0.5) / SS - TILE / 2
            y = py + (sy + 0.5) / SS - TILE / 2
            hits += x * x + y * y <= r * r
    return hits / (SS * SS)


def main(path):
    n = TILE * GRID
    rows = []
    for y in range(n):
        row = bytearray([0])  # filter type None
        for x in range(n):
            k = (y // TILE) * GRID + x // TILE
            v = round(255 * coverage(k, x % TILE, y % TILE))
            row += bytes([v, v, v, 255])
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "assets/mosaic_tiles.png")
