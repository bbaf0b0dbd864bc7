"""The debian kind with a root interpreter: mmdebstrap builds a Debian root (about two minutes), the venv is
made inside it by the root's python3, a setup command runs in it, and the result runs read-only under
bubblewrap. Built once per machine: the cache folder is fixed (``$REQBENCH_TEST_ENV_CACHE`` or
``/var/tmp/reqbench-env-tests``), and the environment's key finds it there the next time."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reqbench.core.environments import ensure_built, load_environment
from reqbench.core.environments.buildbox import box_args, built_box

CACHE = Path(os.environ.get("REQBENCH_TEST_ENV_CACHE", "/var/tmp/reqbench-env-tests"))
BLOCK = {"debian": {"packages": ["python3", "python3-venv"]},
         "python": {"interpreter": "root", "requirements": ["tomli-w==1.0.0"]},
         "setup": ["echo done > /etc/reqbench-setup-ran"]}


@pytest.mark.slow
def test_debian_root_with_its_own_python_runs_read_only(tmp_path: Path, require_bwrap: None) -> None:
    if shutil.which("mmdebstrap") is None:
        pytest.skip("mmdebstrap is not installed")
    spec = load_environment(BLOCK, origin="task.yaml", base_dir=tmp_path)
    built = ensure_built(spec, tmp_path, cache=CACHE)
    assert built.root is not None and built.python == "/opt/reqbench-env/python/bin/python"
    assert (built.root / "etc" / "reqbench-setup-ran").read_text() == "done\n"
    for leftover in ("opt/reqbench-inputs", "opt/reqbench-uv", "opt/reqbench-build"):
        assert not (built.root / leftover).exists()
    base = box_args(built_box(built.root, built.binds, built.env))
    code = "import sys, tomli_w; print(sys.base_prefix, tomli_w.dumps({'k': 2}).strip())"
    done = subprocess.run([*base, "--", built.python, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "/usr k = 2", "the root's interpreter, not the host's"
    denied = subprocess.run([*base, "--", "/bin/sh", "-c", "echo x > /etc/planted"], capture_output=True,
                            text=True, timeout=60)
    assert denied.returncode != 0 and not (built.root / "etc" / "planted").exists()
