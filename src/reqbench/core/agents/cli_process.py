"""Run one agent-side process (a shell command of the `llm` agent, a CLI agent) and collect its output.

Uses the project sandbox (`reqbench.core.sandbox.run_sandboxed`: env scrub, writable workspace only,
optional network cut) when the build has it. Without it, a plain child process in its own process
group, killed as a whole on timeout; ``network=False`` then runs it under ``unshare -n`` where
network namespaces are permitted (root or user namespaces), so even loopback is unreachable.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any


@dataclass
class CLIProcess:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    start_error: str
    wall_seconds: float


@cache
def can_unshare_net() -> bool:
    """Whether ``unshare -n`` works here."""
    if not shutil.which("unshare"):
        return False
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _sandbox() -> Any | None:
    try:
        from reqbench.core.sandbox import run_sandboxed
    except ImportError:
        return None
    return run_sandboxed


def run_cli(argv: list[str], cwd: Path, *, env: dict[str, str], timeout: float | None,
            stdin_file: Path | None = None, writable: list[Path] | None = None,
            network: bool = True) -> CLIProcess:
    """Run `argv` in `cwd` with exactly `env`; never raises for the child's failures.

    `stdin_file` is fed to the child through ``sh -c 'exec "$@" < FILE'`` so the same argv works in
    the sandbox and without it.
    """
    if stdin_file is not None:
        argv = ["sh", "-c", 'f=$1; shift; exec "$@" < "$f"', "sh", str(stdin_file), *argv]
    sandboxed = _sandbox()
    start = time.monotonic()
    if sandboxed is not None:
        res = sandboxed(argv, cwd, timeout=timeout, env=env, writable=writable or [cwd], network=network)
        out = res.stdout.decode("utf-8", "replace") + _read(res.stdout_path)
        err = res.stderr.decode("utf-8", "replace") + _read(res.stderr_path)
        return CLIProcess(res.exit_code, out, err, bool(res.timed_out), res.start_error or "",
                          getattr(res, "wall_seconds", None) or time.monotonic() - start)
    if not network and can_unshare_net():
        argv = ["unshare", "-n", *argv]
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return CLIProcess(None, "", "", False, f"{type(exc).__name__}: {exc}", 0.0)
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        timed_out = True
    return CLIProcess(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                      timed_out, "", time.monotonic() - start)


def _read(path: Any) -> str:
    if not path:
        return ""
    p = Path(path)
    return p.read_text(encoding="utf-8", errors="replace") if p.exists() else ""
