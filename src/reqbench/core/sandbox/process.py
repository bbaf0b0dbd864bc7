"""`run_sandboxed`: the one launcher. Start one process in the sandbox, collect how it ended, leave
nothing behind -- `launch.plan` -> `launch.spawn` -> `launch.collect`, one `ProcessResult`.

How the process runs is one `SandboxOptions` (timeout, environment, view, network or gateway, output,
inherited descriptors), given as an object, as keywords, or both (keywords override the object's fields).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reqbench.core.sandbox.isolation import Isolation, available_isolation
from reqbench.core.sandbox.launch import LaunchPlan, collect, plan, spawn
from reqbench.core.sandbox.result import ProcessResult, SandboxOptions
from reqbench.core.sandbox.scratch import host_folder


def run_sandboxed(command: list[str] | str, cwd: Path, options: SandboxOptions | None = None,
                  /, **fields: Any) -> ProcessResult:
    """Run `command` (argv list, or a string for ``/bin/sh -c``, started without the shell where it needs
    none: `direct`) in `cwd`, which is writable.

    The process sees the allow-list view of `view.View`: `cwd` and ``writable`` read-write,
    ``readonly_binds`` (source -> destination) read-only, the system and toolchain read-only, nothing
    else (`SandboxOptions` documents every field). Never raises for a command that fails, times out or
    cannot start: see `ProcessResult`. Raises `HarnessError` only when the request itself cannot be
    honoured (e.g. a bind under no isolation), `TypeError` for an unknown option.
    """
    opts = dataclasses.replace(options or SandboxOptions(), **fields)
    with _scratch(opts.scratch_dir, available_isolation()) as scratch:
        try:
            launch = plan(command, cwd, opts, scratch)
            if not isinstance(launch, LaunchPlan):
                return launch
            try:
                running = spawn(launch)
            except BaseException:
                launch.release()
                raise
        finally:  # handed over: the process has its own copies, and a pipe's reader then sees its end
            for fd in opts.pass_fds:
                os.close(fd)
        return running if isinstance(running, ProcessResult) else collect(running)


@contextlib.contextmanager
def _scratch(given: Path | None, isolation: Isolation) -> Iterator[Path | None]:
    """The host folder of the launch's HOME and TMPDIR: the caller's, none under bubblewrap (a tmpfs inside
    the sandbox), else a private one removed afterwards (`scratch`)."""
    if given is not None:
        yield Path(given)
    elif isolation == "bwrap":
        yield None
    else:
        with host_folder() as folder:
            yield folder


def describe(command: list[str] | str) -> str:
    """A shell-readable rendering of `command` for trajectories and logs."""
    return command if isinstance(command, str) else shlex.join(str(a) for a in command)
