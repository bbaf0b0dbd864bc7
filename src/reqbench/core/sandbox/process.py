"""`run_sandboxed`: start one process in the sandbox, collect how it ended, leave nothing behind.

Whatever the isolation, the process runs in its own session with a scrubbed, allow-listed environment
(`scrubbed_env`), its output is drained by threads and capped, and at the wall-clock timeout its
whole tree is killed. With bubblewrap the tree lives in its own PID namespace (and a pids cgroup where
one is available), so nothing it started survives the command; without it, every process still
carrying the command's marker variable is swept (best effort: a process can clear its environment,
which is one reason real agents need bubblewrap).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from reqbench.core.errors import HarnessError
from reqbench.core.sandbox import bridge
from reqbench.core.sandbox.isolation import Isolation, available_isolation
from reqbench.core.sandbox.limits import PidsCgroup, rlimit_prefix
from reqbench.core.sandbox.view import View, readonly_mapping

ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "SOURCE_DATE_EPOCH")
"""The only variables of the harness's environment a sandboxed process inherits."""
MARKER = "REQBENCH_SANDBOX_ID"


@dataclass
class ProcessResult:
    """How a sandboxed process ended. `exit_code` is None when it timed out or never started."""

    exit_code: int | None
    timed_out: bool
    start_error: str | None
    stdout_path: Path | None
    stderr_path: Path | None
    wall_seconds: float
    isolation: Isolation
    stdout: bytes = b""
    """Captured stdout (up to the cap) when no `stdout_path` was given."""
    stderr: bytes = b""
    truncated: bool = False
    """True when stdout or stderr exceeded the output cap (the rest was discarded)."""

    def _read(self, path: Path | None, data: bytes, limit: int) -> str:
        if path is not None and path.is_file():
            with open(path, "rb") as fh:
                fh.seek(max(0, path.stat().st_size - limit))
                data = fh.read()
        return data[-limit:].decode("utf-8", "replace")

    def stdout_tail(self, limit: int = 4000) -> str:
        return self._read(self.stdout_path, self.stdout, limit)

    def stderr_tail(self, limit: int = 4000) -> str:
        return self._read(self.stderr_path, self.stderr, limit)


def scrubbed_env(extra: Mapping[str, str] | None, home: Path, tmp: Path, marker: str) -> dict[str, str]:
    """Allow-listed variables, private HOME/TMPDIR, the harness's Python first on PATH, then `extra`."""
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    python_bin = str(Path(sys.executable).parent)
    path = env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    if python_bin not in path.split(os.pathsep):
        path = python_bin + os.pathsep + path
    env.update({"PATH": path, "HOME": str(home), "TMPDIR": str(tmp), "LANG": env.get("LANG", "C.UTF-8"),
                "PYTHONDONTWRITEBYTECODE": "1"})
    env.update(extra or {})
    env[MARKER] = marker
    return env


class _Drain(threading.Thread):
    """Copy a pipe to a file or buffer, keeping at most `cap` bytes and discarding the rest."""

    def __init__(self, pipe: IO[bytes], sink: IO[bytes] | None, cap: int) -> None:
        super().__init__(daemon=True)
        self.pipe, self.sink, self.cap = pipe, sink, cap
        self.kept = 0
        self.buffer = bytearray()
        self.truncated = False

    def run(self) -> None:
        while chunk := self.pipe.read1(65536):  # type: ignore[attr-defined]
            room = self.cap - self.kept
            if len(chunk) > room:
                self.truncated = True
                chunk = chunk[:max(room, 0)]
            if chunk:
                self.kept += len(chunk)
                if self.sink is not None:
                    self.sink.write(chunk)
                else:
                    self.buffer += chunk


def _sweep(marker: str) -> None:
    """SIGKILL every process whose environment carries `marker` (unsandboxed modes only)."""
    needle = f"{MARKER}={marker}".encode()
    for _ in range(20):
        found = False
        for pid_dir in Path("/proc").iterdir():
            if not pid_dir.name.isdigit() or int(pid_dir.name) == os.getpid():
                continue
            try:
                environ = (pid_dir / "environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                found = True
                try:
                    os.kill(int(pid_dir.name), signal.SIGKILL)
                except OSError:
                    pass
        if not found:
            return
        time.sleep(0.05)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def run_sandboxed(
    command: list[str] | str,
    cwd: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    writable: Sequence[Path] = (),
    readonly_binds: Mapping[Path, Path] = {},  # noqa: B006 - read only
    network: bool = False,
    stdout_path: Path | None = None,
    stderr_path: Path | None = None,
    output_cap_bytes: int = 10_000_000,
    hide: Sequence[Path] = (),
    pass_fds: Sequence[int] = (),
    bind_named_files: bool = False,
    gateway_socket: Path | None = None,
    gateway_port: int | None = None,
) -> ProcessResult:
    """Run `command` (argv list, or a string for ``/bin/sh -c``) in `cwd`, which is writable.

    The process sees the allow-list view of `view.View`: `cwd` and `writable` read-write,
    `readonly_binds` (source -> destination) read-only, the system and toolchain read-only, nothing
    else. `hide` masks directories that a bound directory would otherwise expose. `pass_fds` are file
    descriptors the process inherits (e.g. the write end of a harness-owned pipe that a test-runner
    plugin reports through); everything else is closed. `bind_named_files` also binds, read-only, every
    existing file the command names by absolute path: only for commands the harness or the user wrote
    (a `command` template, a check), never for a command the agent chose (the `llm` agent's shell).

    Never raises for a command that fails, times out or cannot start: see `ProcessResult`. Raises
    `HarnessError` only when the request itself cannot be honoured (e.g. a bind under no isolation).
    """
    cwd = Path(os.path.abspath(cwd))
    isolation = available_isolation()
    argv = ["/bin/sh", "-c", command] if isinstance(command, str) else [str(a) for a in command]
    marker = uuid.uuid4().hex
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="reqbench-sbx-") as scratch:
        home, tmp = Path(scratch) / "home", Path(scratch) / "tmp"
        home.mkdir()
        tmp.mkdir()
        full_env = scrubbed_env(env, home, tmp, marker)

        def failed(reason: str) -> ProcessResult:
            return ProcessResult(None, False, reason, stdout_path, stderr_path,
                                 time.monotonic() - started, isolation)

        if not cwd.is_dir():
            return failed(f"working directory {cwd} does not exist")
        if not isinstance(command, str):
            if not argv:
                return failed("empty command")
            if shutil.which(argv[0], path=full_env["PATH"]) is None:
                return failed(f"command not found: {argv[0]}")
        readonly_binds = dict(readonly_binds)
        if gateway_socket is not None:
            if network:
                raise HarnessError("a sandbox gets either the host network or the gateway, not both")
            inside = bridge.SOCKET_INSIDE if isolation == "bwrap" else Path(gateway_socket)
            if isolation == "bwrap":
                readonly_binds[Path(gateway_socket)] = inside
            port = gateway_port or bridge.sandbox_port(isolation != "none")
            argv = bridge.wrap(argv, inside, port)
        prefix: list[str] = []
        status_r = status_w = -1
        cgroup: PidsCgroup | None = None
        if isolation == "bwrap":
            status_r, status_w = os.pipe()
            view = View(cwd=cwd, writable=[cwd, Path(scratch), *(Path(os.path.abspath(w)) for w in writable)],
                        readonly=readonly_mapping(readonly_binds), hide=[Path(h) for h in hide],
                        network=network, argv=argv if bind_named_files else (),
                        env_path=full_env["PATH"])
            cgroup = PidsCgroup.create()
            prefix = [*(cgroup.join_prefix() if cgroup else []), *rlimit_prefix(), "bwrap",
                      "--json-status-fd", str(status_w), *view.bwrap_args(), "--"]
        else:
            moved = {s: d for s, d in readonly_binds.items() if Path(s).resolve() != Path(d).resolve()}
            if moved:
                raise HarnessError(f"cannot bind {sorted(map(str, moved))} without bubblewrap")
            if isolation == "unshare" and not network:
                prefix = ["unshare", "-n", "--"]
        out_sink = open(stdout_path, "wb") if stdout_path else None  # noqa: SIM115
        err_sink = open(stderr_path, "wb") if stderr_path else None  # noqa: SIM115
        try:
            try:
                proc = subprocess.Popen([*prefix, *argv], cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        start_new_session=True,
                                        pass_fds=(*((status_w,) if status_w >= 0 else ()), *pass_fds))
            except OSError as exc:
                return failed(f"cannot start {argv[0]}: {exc}")
            finally:
                if status_w >= 0:
                    os.close(status_w)
            assert proc.stdout is not None and proc.stderr is not None
            drains = [_Drain(proc.stdout, out_sink, output_cap_bytes),
                      _Drain(proc.stderr, err_sink, output_cap_bytes)]
            for d in drains:
                d.start()
            timed_out = False
            try:
                code: int | None = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                proc.wait()
                code = None
            _kill_group(proc)
            if cgroup is not None:
                cgroup.kill_all()
                cgroup = None
            if isolation != "bwrap":
                _sweep(marker)
            for d in drains:
                d.join(timeout=5)
            start_error = None
            if isolation == "bwrap":
                status = _read_status(status_r)
                if "child-pid" not in status and not timed_out:
                    start_error = ("bubblewrap could not start the sandbox: "
                                   + bytes(drains[1].buffer).decode("utf-8", "replace")[-500:]
                                   if err_sink is None else "bubblewrap could not start the sandbox")
                    code = None
                elif "exit-code" in status and not timed_out:
                    code = int(status["exit-code"])
            if code is not None and code < 0:  # killed by a signal: report as the shell would
                code = 128 - code
            return ProcessResult(code, timed_out, start_error, stdout_path, stderr_path,
                                 time.monotonic() - started, isolation, bytes(drains[0].buffer),
                                 bytes(drains[1].buffer), any(d.truncated for d in drains))
        finally:
            if cgroup is not None:
                cgroup.kill_all()
            for sink in (out_sink, err_sink):
                if sink is not None:
                    sink.close()
            if status_r >= 0:
                os.close(status_r)


def _read_status(fd: int) -> dict[str, int]:
    """Merge bwrap's JSON status lines (``{"child-pid": N}``, ``{"exit-code": N}``)."""
    os.set_blocking(fd, False)
    data = b""
    try:
        while chunk := os.read(fd, 65536):
            data += chunk
    except BlockingIOError:
        pass
    status: dict[str, int] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            status.update(json.loads(line))
        except (json.JSONDecodeError, TypeError):
            continue
    return status


def describe(command: list[str] | str) -> str:
    """A shell-readable rendering of `command` for trajectories and logs."""
    return command if isinstance(command, str) else shlex.join(str(a) for a in command)
