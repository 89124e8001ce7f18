"""Issue 29 (new user): importing texelflow and opening a device print nothing to stderr,
also without XDG_RUNTIME_DIR (a Ray worker, a service, ssh without a session): it printed
``error: XDG_RUNTIME_DIR is invalid or not set in the environment.`` twice per device open."""

import os
import subprocess
import sys


def test_import_and_device_open_print_nothing():
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY")}
    code = (
        "import numpy as np, texelflow\n"
        "texelflow.devices()\n"
        "texelflow.device_name('auto')\n"
        "texelflow.apply(np.zeros((4, 4, 4), np.uint8), 'brightness(0.1)')\n"
    )
    run = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "", run.stderr
