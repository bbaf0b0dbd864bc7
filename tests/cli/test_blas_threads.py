"""The harness's numpy runs OpenBLAS on one thread (`cli.main`: its worker threads would only spin, taking
CPU from the rows), unless the user chose a number; what the command sets never reaches an agent or a
check, whose environments are allow-lists."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents.preset_base import PASS_ENV
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.launch import ENV_ALLOW

PROBE = """
import os, sys
sys.argv = ['reqbench', '--help']
from reqbench.cli.main import main
try:
    main()
except SystemExit:
    pass
import numpy
print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))
"""


def threads_after_numpy(env: dict[str, str]) -> tuple[str, int]:
    """(OPENBLAS_NUM_THREADS, the process's thread count) after `reqbench --help`, then numpy's import."""
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    value, threads = proc.stdout.split()[-2:]
    return value, int(threads)


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not os.path.isdir("/proc/self/task"),
                    reason="OpenBLAS starts no worker thread on one CPU (or no /proc here)")
def test_the_command_imports_numpy_with_one_blas_thread_and_keeps_a_users_choice() -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    assert threads_after_numpy(base) == ("1", 1)
    value, threads = threads_after_numpy({**base, "OPENBLAS_NUM_THREADS": "2"})
    assert value == "2" and threads == 2  # the user's number: OpenBLAS started its worker


def test_agents_and_checks_never_inherit_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandboxed process (an agent's step, a check) gets an allow-listed environment: the command's
    setting stays in the harness."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    assert "OPENBLAS_NUM_THREADS" not in ENV_ALLOW and "OPENBLAS_NUM_THREADS" not in PASS_ENV
    result = run_sandboxed(["env"], tmp_path, timeout=60)
    assert result.exit_code == 0 and b"PATH=" in result.stdout
    assert b"OPENBLAS" not in result.stdout
