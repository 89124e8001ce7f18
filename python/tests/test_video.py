"""texelflow.process_video: a tiny clip made with ffmpeg goes through a pipeline frame for frame
(count and size checked with ffprobe); bad input raises one line. Skipped without ffmpeg."""

import json
import shutil
import subprocess

import pytest

import texelflow

pytestmark = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
    reason="ffmpeg/ffprobe not found",
)


def _clip(path):
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10",
         "-frames:v", "8", "-c:v", "ffv1", "-pix_fmt", "yuv420p", str(path)],
        check=True,
    )


def _frames_and_size(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
         "stream=nb_read_frames,width,height", "-of", "json", str(path)],
        check=True, capture_output=True, text=True,
    ).stdout
    s = json.loads(out)["streams"][0]
    return int(s["nb_read_frames"]), s["width"], s["height"]


def test_process_video_frame_for_frame(tmp_path):
    src, dst = tmp_path / "in.mkv", tmp_path / "out.mkv"
    _clip(src)
    r = texelflow.process_video(src, dst, "resize(width=32, height=24) | low_pass(strength=0.5)",
                                cpu=True, codec="ffv1")
    assert r["frames"] == 8
    assert r["input_size"] == [64, 48]
    assert r["output_size"] == [32, 24]
    assert _frames_and_size(dst) == (8, 32, 24)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mkv", "out.mkv"]


def test_process_video_data_per_frame(tmp_path):
    src, dst = tmp_path / "in.mkv", tmp_path / "stats.jsonl"
    _clip(src)
    r = texelflow.process_video(src, dst, "reduce", cpu=True, data=True)
    assert r["frames"] == 8 and r["output_size"] is None
    lines = dst.read_text().splitlines()
    assert len(lines) == 8 and json.loads(lines[3])["frame"] == 3


def test_process_video_bad_input_is_one_line(tmp_path):
    src, dst = tmp_path / "bad.mp4", tmp_path / "out.mp4"
    src.write_bytes(b"not a video")
    with pytest.raises(OSError) as e:
        texelflow.process_video(src, dst, "color_invert", cpu=True)
    assert "cannot read" in str(e.value) and "\n" not in str(e.value)
    assert not dst.exists()
    with pytest.raises(ValueError):
        texelflow.process_video(src, dst, "color_invert", cpu=True, transfer="nv12")
