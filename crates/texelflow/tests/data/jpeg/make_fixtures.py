"""Makes the CMYK JPEG fixtures of tests/jpeg.rs (issue 29, item 2) with Pillow, and each
fixture's reference: Pillow's own decoding, `Image.open(f).convert('RGB')`, as a PNG.

    python make_fixtures.py            # cmyk_adobe.jpg, cmyk_plain.jpg, and every *.ref.png

ycck.jpg (libjpeg-turbo's compressor given CMYK pixels writes YCCK) is made by the ignored test
`make_ycck_fixture` of tests/jpeg.rs, then this script is run again for its reference.
"""
import os

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def source(w=48, h=32):
    """Gradients, a hue sweep and flat patches: every channel over its range."""
    y, x = np.mgrid[0:h, 0:w]
    rgb = np.stack([x * 255 // (w - 1), y * 255 // (h - 1), (x * 5 + y * 3) % 256], -1)
    rgb[4:12, 4:12] = (200, 30, 40)
    rgb[4:12, 20:28] = (20, 160, 60)
    rgb[18:28, 30:44] = (250, 240, 10)
    return rgb.astype(np.uint8)


def strip_app14(jpeg):
    """The file without its Adobe APP14 segment: 4 components and no marker saying how."""
    out, i = bytearray(jpeg[:2]), 2
    while i < len(jpeg):
        marker = jpeg[i + 1]
        if marker == 0xDA:  # start of scan: the rest is data
            out += jpeg[i:]
            break
        n = int.from_bytes(jpeg[i + 2 : i + 4], "big")
        if not (marker == 0xEE and jpeg[i + 4 : i + 9] == b"Adobe"):
            out += jpeg[i : i + 2 + n]
        i += 2 + n
    return bytes(out)


def main():
    adobe = os.path.join(HERE, "cmyk_adobe.jpg")
    Image.fromarray(source()).convert("CMYK").save(adobe, quality=92)
    with open(adobe, "rb") as f:
        data = f.read()
    assert b"Adobe" in data
    plain = strip_app14(data)
    assert b"Adobe" not in plain
    with open(os.path.join(HERE, "cmyk_plain.jpg"), "wb") as f:
        f.write(plain)
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".jpg"):
            with Image.open(os.path.join(HERE, name)) as im:
                assert im.mode == "CMYK", name
                im.convert("RGB").save(os.path.join(HERE, name[:-4] + ".ref.png"))


if __name__ == "__main__":
    main()
