"""Issue 29 item 14: `texelflow.quote` makes any file name one spec value, and errors about
a file named in a spec never quote its content."""

import os
import subprocess
import sys

import numpy as np
import pytest

import texelflow

HOSTILE = [
    "plain.cube",
    "a, b).cube",
    "x | invert.cube",
    'q"uote".cube',
    "back\\slash\\.cube",
    '\\".cube',
    "new\nline\ttab.cube",
    "ｕｎｉ｜code ü.cube",
    "lut_cube(file=x) | invert.cube",
    "a=b[1,2].cube",
]

IDENTITY = "LUT_3D_SIZE 2\n" + "".join(f"{r} {g} {b}\n" for b in (0, 1) for g in (0, 1) for r in (0, 1))


@pytest.mark.parametrize("name", HOSTILE)
def test_quoted_hostile_file_names_round_trip(tmp_path, name):
    path = tmp_path / name
    path.write_text(IDENTITY)
    img = np.arange(4 * 4 * 4, dtype=np.uint8).reshape(4, 4, 4)
    spec = f"lut_cube(file={texelflow.quote(str(path))}) | brightness(0)"
    out = texelflow.apply(img, spec, device="cpu")
    assert np.array_equal(out, img)


def test_quote_escapes_only_quote_and_backslash():
    assert texelflow.quote('a"b\\c') == '"a\\"b\\\\c"'
    assert texelflow.quote("") == '""'


SECRET = "root:x:0:0:hunter2:/root:/bin/bash\ndaemon:x:1:1:s3cr3t:/usr/sbin\n"


@pytest.mark.parametrize("ext,spec", [("cube", "lut_cube(file={})"), ("acv", "tone_curve(file={})")])
def test_errors_never_quote_the_named_file(tmp_path, ext, spec):
    path = tmp_path / f"passwd.{ext}"
    path.write_text(SECRET)
    with pytest.raises(Exception) as e:
        texelflow.apply(np.zeros((4, 4, 4), np.uint8), spec.format(texelflow.quote(str(path))), device="cpu")
    text = str(e.value)
    for word in ("root:x", "hunter2", "s3cr3t", "/bin/bash", "daemon", "usr/sbin"):
        assert word not in text, text
    assert "passwd." in text  # the file is named, its content is not
