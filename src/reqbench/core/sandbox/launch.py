"""The launcher's three steps: `plan` (what to run, with which view and environment), `spawn` (start it
in its own session), `collect` (wait while draining its output, kill what is left, read how it ended).

Whatever the isolation, the process runs in its own session with a scrubbed, allow-listed environment
(`scrubbed_env`), its output is drained and capped by one poll loop in the calling thread (`pump`), and
at the wall-clock timeout its whole tree is killed. In every mode the tree is capped
(`limits.TreeLimits`: pids and memory cgroups where the machine allows them, rlimits) and its cgroups
are swept. With bubblewrap the tree lives in its own PID namespace, so nothing it started survives the
command; without it, every process still carrying the command's marker variable is swept (best effort:
a process can clear its environment, which is one reason real agents need bubblewrap).
`process.run_sandboxed` chains the three.

Under bubblewrap, `plan` takes the host part of the view from `view.host_part` (built once per distinct
input) and starts a shell string that needs no shell directly (`direct`). A launch without a scratch
folder of its own gets HOME and TMPDIR on a size-limited tmpfs inside the sandbox, and its command runs
under the epilogue that reports whether it filled it (`scratch`). A launch in a task's environment
(`SandboxOptions.environment`, else the agent step's `environment.agent_environment`) takes its system
directories, layers and variables from it and is never started directly (the host cannot tell what the
environment's PATH finds).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from reqbench.core.errors import HarnessError
from reqbench.core.llm.ledger import FailureKind, note
from reqbench.core.sandbox import bridge
from reqbench.core.sandbox import scratch as scratch_space
from reqbench.core.sandbox.direct import direct_argv
from reqbench.core.sandbox.environment import EnvironmentMount, current_agent_environment
from reqbench.core.sandbox.isolation import Isolation, available_isolation
from reqbench.core.sandbox.limits import TreeLimits
from reqbench.core.sandbox.pump import Pump, Stream
from reqbench.core.sandbox.result import ProcessResult, SandboxOptions
from reqbench.core.sandbox.view import View, host_part, readonly_mapping

ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "SOURCE_DATE_EPOCH")
"""The only variables of the harness's environment a sandboxed process inherits."""
MARKER = "REQBENCH_SANDBOX_ID"


def scrubbed_env(extra: Mapping[str, str] | None, home: Path, tmp: Path, marker: str,
                 environment: EnvironmentMount | None = None) -> dict[str, str]:
    """Allow-listed variables, private HOME/TMPDIR, the harness's Python first on PATH (after the task
    environment's own PATH prefix and variables), then `extra`."""
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    python_bin = str(Path(sys.executable).parent)
    path = env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    if python_bin not in path.split(os.pathsep):
        path = python_bin + os.pathsep + path
    env.update({"PATH": path, "HOME": str(home), "TMPDIR": str(tmp), "LANG": env.get("LANG", "C.UTF-8"),
                "PYTHONDONTWRITEBYTECODE": "1"})
    if environment is not None:
        environment.apply_variables(env)
    env.update(extra or {})
    env[MARKER] = marker
    return env


@dataclass
class LaunchPlan:
    """Everything decided before the process starts."""

    argv: list[str]
    """The full command line: isolation prefix (cgroup join, rlimits, bwrap or unshare) + `command`."""
    command: list[str]
    """The command as it runs inside the sandbox (with its stdin and gateway wrappers)."""
    cwd: Path
    env: dict[str, str]
    options: SandboxOptions
    isolation: Isolation
    marker: str
    started: float
    limits: TreeLimits | None = None
    """The tree's cgroups and rlimits (`limits.TreeLimits`), applied by the first exec of `argv`."""
    status_fds: tuple[int, int] = (-1, -1)
    """bwrap's ``--json-status-fd`` pipe (read end, write end); -1 without bubblewrap."""
    scratch_bytes: int | None = None
    """The size of the HOME/TMPDIR tmpfs inside the sandbox (None: the caller's or a host folder)."""
    report_fds: tuple[int, int] = (-1, -1)
    """The scratch epilogue's pipe (read end, write end; `scratch.with_epilogue`); -1 without one."""

    def failed(self, reason: str) -> ProcessResult:
        """The result of a process that could not start."""
        self.release()
        return ProcessResult(None, False, reason, self.options.stdout_path, self.options.stderr_path,
                             time.monotonic() - self.started, self.isolation)

    def release(self) -> None:
        """Close the status pipe and sweep the cgroups (idempotent)."""
        if self.limits is not None:
            self.limits.end()
        for fd in (*self.status_fds, *self.report_fds):
            if fd >= 0:
                os.close(fd)
        self.status_fds = self.report_fds = (-1, -1)


def plan(command: list[str] | str, cwd: Path, options: SandboxOptions,
         scratch: Path | None) -> LaunchPlan | ProcessResult:
    """The launch plan for `command` in `cwd` (private HOME and TMPDIR under the host folder `scratch`, or
    with None on a size-limited tmpfs inside the sandbox: bubblewrap only), or the result of a command that
    cannot start. Raises `HarnessError` only for a request that cannot be honoured."""
    cwd = Path(os.path.abspath(cwd))
    isolation = available_isolation()
    argv = ["/bin/sh", "-c", command] if isinstance(command, str) else [str(a) for a in command]
    marker = uuid.uuid4().hex
    scratch_bytes = None
    if scratch is None:
        if isolation != "bwrap":
            raise HarnessError("HOME and TMPDIR inside the sandbox need bubblewrap")
        scratch_bytes = scratch_space.scratch_bytes(options.scratch_bytes)
        home, tmp = scratch_space.HOME, scratch_space.TMP
    else:
        home, tmp = scratch / "home", scratch / "tmp"
        home.mkdir()
        tmp.mkdir()
    environment = options.environment or current_agent_environment()
    if environment is not None and isolation != "bwrap":
        raise HarnessError(f"the task's environment {environment.key[:12]} needs bubblewrap to be shown")
    env = scrubbed_env(options.env, home, tmp, marker, environment)
    host = host_part(env["PATH"], environment) if isolation == "bwrap" else None
    if host is not None and isinstance(command, str) and environment is None:  # the host decides `direct`
        own = [cwd, scratch or scratch_space.INSIDE, *options.writable, *options.readonly_binds.values(),
               *options.writable_binds.values(), *options.hide,
               *([bridge.SOCKET_INSIDE] if options.gateway_socket is not None else [])]
        words = direct_argv(command, env, cwd, host, [Path(os.path.abspath(p)) for p in own])
        if words is not None:  # what the shell would have run, without the shell (`direct`)
            argv = words
            env["PWD"] = str(cwd)
    launch = LaunchPlan(argv, argv, cwd, env, options, isolation, marker, time.monotonic(),
                        scratch_bytes=scratch_bytes)
    if not cwd.is_dir():
        return launch.failed(f"working directory {cwd} does not exist")
    if not isinstance(command, str):
        if not argv:
            return launch.failed("empty command")
        if environment is None and shutil.which(argv[0], path=env["PATH"]) is None:
            return launch.failed(f"command not found: {argv[0]}")
    if options.stdin_file is not None:
        argv = ["sh", "-c", 'f=$1; shift; exec "$@" < "$f"', "sh", str(options.stdin_file), *argv]
    readonly_binds = dict(options.readonly_binds)
    if options.gateway_socket is not None:
        if options.network:
            raise HarnessError("a sandbox gets either the host network or the gateway, not both")
        inside = bridge.SOCKET_INSIDE if isolation == "bwrap" else Path(options.gateway_socket)
        if isolation == "bwrap":
            readonly_binds[Path(options.gateway_socket)] = inside
        argv = bridge.wrap(argv, inside, options.gateway_port or bridge.sandbox_port(isolation != "none"))
    prefix: list[str] = []
    if isolation == "bwrap":
        launch.status_fds = os.pipe()
        view = View(cwd=cwd, writable=[cwd, *([scratch] if scratch is not None else []),
                                       *(Path(os.path.abspath(w)) for w in options.writable)],
                    readonly=readonly_mapping(readonly_binds), hide=[Path(h) for h in options.hide],
                    writable_at=readonly_mapping(options.writable_binds),
                    network=options.network, argv=argv if options.bind_named_files else (),
                    env_path=env["PATH"], host=host, scratch_bytes=scratch_bytes, environment=environment)
        prefix = ["bwrap", "--json-status-fd", str(launch.status_fds[1]), *view.bwrap_args(), "--"]
        if scratch_bytes is not None:
            launch.report_fds = os.pipe()
            argv = scratch_space.with_epilogue(argv, launch.report_fds[1])
    else:
        moved = {s: d for s, d in [*readonly_binds.items(), *options.writable_binds.items()]
                 if Path(s).resolve() != Path(d).resolve()}
        if moved:
            raise HarnessError(f"cannot bind {sorted(map(str, moved))} without bubblewrap")
        if isolation == "unshare" and not options.network:
            prefix = ["unshare", "-n", "--"]
    launch.limits = TreeLimits.create(options.memory_bytes)
    launch.command, launch.argv = argv, [*launch.limits.prefix(), *prefix, *argv]
    return launch


DRAIN_GRACE_SECONDS = 5.0
"""How long output still buffered is read after the tree is gone (a pipe a surviving descendant holds
open is given up then)."""


@dataclass
class Running:
    """A started process with the streams its `Pump` drains and the files they write to."""

    plan: LaunchPlan
    proc: subprocess.Popen[bytes]
    pump: Pump
    stdout: Stream
    stderr: Stream
    channel: Stream | None = None
    sinks: list[IO[bytes]] = field(default_factory=list)
    report: Stream | None = None
    """The scratch epilogue's report (`scratch.with_epilogue`)."""


def spawn(launch: LaunchPlan) -> Running | ProcessResult:
    """Start the planned process in a new session (stdin closed, output drained by `collect`), or the
    result of a start that failed. The plan's resources are released by `collect` (or here, on failure)."""
    opts = launch.options
    sinks: list[IO[bytes]] = [open(p, "wb") for p in (opts.stdout_path, opts.stderr_path) if p]  # noqa: SIM115
    out_sink = sinks[0] if opts.stdout_path else None
    err_sink = sinks[-1] if opts.stderr_path else None
    own_fds = tuple(fd for fd in (launch.status_fds[1], launch.report_fds[1]) if fd >= 0)
    error: OSError | None = None
    try:
        proc = subprocess.Popen(launch.argv, cwd=launch.cwd, env=launch.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                pass_fds=(*own_fds, *opts.pass_fds))
    except OSError as exc:
        error = exc
    finally:  # only the sandbox keeps the write ends
        for fd in own_fds:
            os.close(fd)
        launch.status_fds, launch.report_fds = (launch.status_fds[0], -1), (launch.report_fds[0], -1)
    if error is not None:
        for sink in sinks:
            sink.close()
        return launch.failed(f"cannot start {launch.command[0]}: {error}")
    assert proc.stdout is not None and proc.stderr is not None
    out = Stream(proc.stdout.fileno(), opts.output_cap_bytes, out_sink)
    err = Stream(proc.stderr.fileno(), opts.output_cap_bytes, err_sink)
    channel = Stream(opts.channel_fd, opts.channel_cap_bytes) if opts.channel_fd is not None else None
    report = Stream(launch.report_fds[0], scratch_space.REPORT_CAP) if launch.report_fds[0] >= 0 else None
    streams = [out, err, *(s for s in (channel, report) if s is not None)]
    return Running(launch, proc, Pump(proc, streams), out, err, channel, sinks, report)


def collect(running: Running) -> ProcessResult:
    """Wait for the process while draining its output (killing its tree at the timeout), sweep what it
    left, read its exit status."""
    launch, proc, pump = running.plan, running.proc, running.pump
    try:
        timed_out = False
        try:
            code: int | None = pump.wait(launch.options.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            proc.wait()
            code = None
        _kill_group(proc)
        oom_killed = launch.limits.end() if launch.limits is not None else False
        if launch.isolation != "bwrap":
            _sweep(launch.marker)
        pump.finish(DRAIN_GRACE_SECONDS)
        start_error = None
        if launch.isolation == "bwrap":
            status = _read_status(launch.status_fds[0])
            if "child-pid" not in status and not timed_out:
                start_error = ("bubblewrap could not start the sandbox: "
                               + bytes(running.stderr.data).decode("utf-8", "replace")[-500:]
                               if launch.options.stderr_path is None else "bubblewrap could not start the sandbox")
                code = None
            elif running.report is not None and not timed_out and not scratch_space.started(
                    bytes(running.report.data)):  # bubblewrap ran but its set-up failed before the command
                start_error = ("bubblewrap could not set up the sandbox: "
                               + bytes(running.stderr.data).decode("utf-8", "replace")[-500:])
                code = None
            elif "exit-code" in status and not timed_out:
                code = int(status["exit-code"])
        if start_error is not None:  # bubblewrap's own status channel said so: the harness observed it
            note(FailureKind.LAUNCHER, start_error)
        if code is not None and code < 0:  # killed by a signal: report as the shell would
            code = 128 - code
        channel = running.channel
        return ProcessResult(code, timed_out, start_error, launch.options.stdout_path,
                             launch.options.stderr_path, time.monotonic() - launch.started, launch.isolation,
                             bytes(running.stdout.data), bytes(running.stderr.data),
                             running.stdout.truncated or running.stderr.truncated,
                             oom_killed, launch.limits.memory_bytes if launch.limits is not None else None,
                             bytes(channel.data) if channel is not None else b"",
                             channel is not None and (channel.truncated or channel.incomplete),
                             scratch_full=running.report is not None
                             and scratch_space.was_full(bytes(running.report.data)),
                             scratch_bytes=launch.scratch_bytes)
    finally:
        launch.release()
        for sink in running.sinks:
            sink.close()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


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


def _read_status(fd: int) -> dict[str, int]:
    """Merge bwrap's JSON status lines (``{"child-pid": N}``, ``{"exit-code": N}``)."""
    if fd < 0:
        return {}
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
