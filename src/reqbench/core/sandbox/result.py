"""What the launcher takes and gives: `SandboxOptions` (how to run one process) and `ProcessResult` (how
it ended). Every agent step, check and probe is described by one and answered by the other."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.sandbox.environment import EnvironmentMount
from reqbench.core.sandbox.isolation import Isolation
from reqbench.core.sandbox.limits import MEMORY_ENV, format_size
from reqbench.core.sandbox.scratch import SCRATCH_ENV


@dataclass(frozen=True)
class SandboxOptions:
    """How one sandboxed process runs (`run_sandboxed`); every field has a safe default."""

    timeout: float | None = None
    """Wall-clock limit in seconds (None: none); at the limit the whole process tree is killed."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables added to the scrubbed environment (`launch.scrubbed_env`)."""
    writable: Sequence[Path] = ()
    """Directories visible read-write besides the working directory."""
    readonly_binds: Mapping[Path, Path] = field(default_factory=dict)
    """source -> destination, visible read-only."""
    writable_binds: Mapping[Path, Path] = field(default_factory=dict)
    """source -> destination, visible read-write at a path of the caller's choice (bubblewrap only), e.g. a
    harness-owned output folder at the fixed path a foreign verifier writes to."""
    hide: Sequence[Path] = ()
    """Directories masked although a bound directory would expose them."""
    network: bool = False
    """Share the host's network namespace (never together with a gateway)."""
    gateway_socket: Path | None = None
    """The model gateway's unix socket: the process's only network endpoint (`bridge`)."""
    gateway_port: int | None = None
    stdout_path: Path | None = None
    """Write stdout to this file instead of keeping it in `ProcessResult.stdout`."""
    stderr_path: Path | None = None
    stdin_file: Path | None = None
    """Feed this file on stdin (through ``sh -c 'exec "$@" < FILE'``, so the argv stays a plain list)."""
    output_cap_bytes: int = 10_000_000
    """Per stream; the rest is discarded and `ProcessResult.truncated` set."""
    pass_fds: Sequence[int] = ()
    """File descriptors the process inherits (e.g. the write end of a report pipe); all others are closed.
    They are handed over: `run_sandboxed` closes the harness's copies once the process has started (or
    could not start), so the process tree holds the only write end of a pipe passed this way."""
    channel_fd: int | None = None
    """The read end of a harness pipe whose write end is in `pass_fds`: read while the process runs, into
    `ProcessResult.channel` (the caller keeps and closes this end)."""
    channel_cap_bytes: int = 10_000_000
    bind_named_files: bool = False
    """Bind, read-only, every existing file the command names by absolute path: only for commands the
    harness or the user wrote (a `command` template, a check, a preset), never one the agent chose."""
    scratch_dir: Path | None = None
    """An empty private directory for the process's HOME and TMPDIR (writable to it), made and removed by
    the caller -- e.g. inside a check's own memory-backed scratch tree; None: under bubblewrap a tmpfs of
    `scratch_bytes` inside the sandbox (nothing on the host; `scratch`), else a private host folder removed
    afterwards."""
    scratch_bytes: int | None = None
    """Size of that tmpfs (None: ``$REQBENCH_AGENT_SCRATCH_BYTES`` or 1 GiB; `scratch.scratch_bytes`)."""
    memory_bytes: int | None = None
    """Memory cap of the whole process tree in bytes (None: ``$REQBENCH_SANDBOX_MEMORY`` or the default
    of `limits.default_memory`; 0: none). Over it the kernel kills a member: `ProcessResult.oom_killed`."""
    environment: EnvironmentMount | None = None
    """The task's environment to run in (`environment`; a check passes the pristine one). None: the agent
    step's (`environment.agent_environment`), if any, else the host's system directories."""

    def __post_init__(self) -> None:
        if self.timeout is not None and math.isnan(self.timeout):
            raise ValueError("a sandbox's timeout cannot be NaN")
        if self.timeout == math.inf:  # no limit, as None: the launcher counts its wait in milliseconds
            object.__setattr__(self, "timeout", None)


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
    oom_killed: bool = False
    """The kernel killed a process of the tree because the tree exceeded its memory cap."""
    memory_cap_bytes: int | None = None
    """The tree's memory cap (None: none)."""
    channel: bytes = b""
    """What arrived on `SandboxOptions.channel_fd` (up to its cap)."""
    channel_overflow: bool = False
    """The channel exceeded its cap, or a descendant still held it open after the tree ended: it may
    lack what was written last."""
    scratch_full: bool = False
    """The tree filled its HOME/TMPDIR tmpfs (writes past it failed with ENOSPC)."""
    scratch_bytes: int | None = None
    """The size of that tmpfs (None: HOME and TMPDIR were a folder)."""

    def memory_note(self) -> str:
        """One sentence naming the memory cap when the tree was killed for it, else ""."""
        if not self.oom_killed:
            return ""
        cap = f" of {format_size(self.memory_cap_bytes)}" if self.memory_cap_bytes else ""
        return (f"killed by the kernel for exceeding the sandbox's memory cap{cap} "
                f"(${MEMORY_ENV})")

    def scratch_note(self) -> str:
        """One sentence naming the scratch bound when the tree filled its HOME/TMPDIR, else ""."""
        if not self.scratch_full:
            return ""
        size = f" of {format_size(self.scratch_bytes)}" if self.scratch_bytes else ""
        return f"filled its HOME/TMPDIR scratch{size} (${SCRATCH_ENV})"

    def limit_notes(self) -> str:
        """The memory and scratch notes of a tree that ran into either bound, joined ("" if neither)."""
        return "; ".join(filter(None, [self.memory_note(), self.scratch_note()]))

    def _read(self, path: Path | None, data: bytes, limit: int | None) -> str:
        if path is not None and path.is_file():
            with open(path, "rb") as fh:
                if limit is not None:
                    fh.seek(max(0, path.stat().st_size - limit))
                data = fh.read()
        return (data if limit is None else data[-limit:]).decode("utf-8", "replace")

    def stdout_tail(self, limit: int = 4000) -> str:
        return self._read(self.stdout_path, self.stdout, limit)

    def stderr_tail(self, limit: int = 4000) -> str:
        return self._read(self.stderr_path, self.stderr, limit)

    def stdout_text(self) -> str:
        """All of stdout that was kept (from its file when one was given), as text."""
        return self._read(self.stdout_path, self.stdout, None)

    def stderr_text(self) -> str:
        return self._read(self.stderr_path, self.stderr, None)
