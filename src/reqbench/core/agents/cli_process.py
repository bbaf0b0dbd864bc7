"""Run one agent-side process (a shell command of the `llm` agent, a preset CLI) and collect its output.

Always through the sandbox (`reqbench.core.sandbox.run_sandboxed`): allow-list file-system view,
scrubbed environment, no capabilities, its own PID namespace, no network but the model gateway.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reqbench.core.sandbox import ProcessResult, run_sandboxed

UNLIMITED_SECONDS = 7 * 24 * 3600.0


@dataclass
class CLIProcess:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    start_error: str
    wall_seconds: float


def run_cli(argv: list[str], cwd: Path, *, env: dict[str, str], timeout: float | None,
            stdin_file: Path | None = None, writable: list[Path] | None = None,
            readonly: list[Path] | None = None, hide: list[Path] | None = None,
            network: bool = False, trusted_command: bool = False, gateway_socket: Path | None = None,
            gateway_port: int | None = None) -> CLIProcess:
    """Run `argv` in `cwd` with exactly `env` (plus the sandbox's private HOME/TMPDIR unless `env` sets
    them); never raises for the child's failures.

    `stdin_file` is fed to the child through ``sh -c 'exec "$@" < FILE'`` so the argv stays a plain list.
    `readonly` directories are made visible read-only (e.g. a tool installed outside the system
    directories); `hide` masks directories a bound one would expose. `trusted_command` says the argv was
    written by the harness or the user (a preset), not chosen by the agent: files it names are bound.
    `gateway_socket` makes the model gateway the process's only network endpoint (`sandbox.bridge`).
    """
    if stdin_file is not None:
        argv = ["sh", "-c", 'f=$1; shift; exec "$@" < "$f"', "sh", str(stdin_file), *argv]
    res = run_sandboxed(argv, cwd, timeout=timeout if timeout is not None else UNLIMITED_SECONDS, env=env,
                        writable=writable or [cwd], readonly_binds={p: p for p in readonly or []},
                        network=network, hide=list(hide or []), bind_named_files=trusted_command,
                        gateway_socket=gateway_socket, gateway_port=gateway_port)
    return CLIProcess(res.exit_code, _text(res, "stdout"), _text(res, "stderr"), bool(res.timed_out),
                      res.start_error or "", res.wall_seconds)


def _text(res: ProcessResult, stream: str) -> str:
    """A sandboxed stream's text: from its file when one was given, else from the captured bytes."""
    path: Path | None = getattr(res, f"{stream}_path")
    if path is not None and path.is_file():
        return path.read_text(encoding="utf-8", errors="replace")
    data: bytes = getattr(res, stream)
    return data.decode("utf-8", "replace")
