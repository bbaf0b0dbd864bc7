"""The `command` agent: any CLI, templated with the run's input files, run in the sandbox.

`CommandAgent` is also the base the CLI presets (Claude Code, Codex, Aider, ...) build on: they supply
an argv template, environment and a `parse_usage` hook that reads token usage from the tool's output.

HOME and TMPDIR are the sandbox's size-limited tmpfs (`core.sandbox.scratch`); the prompt file lies in a
private folder of the harness (`state`), shown read-only.

Placeholders (in every argv element, or in a shell string where they are shell-quoted):
``{workspace}``, ``{prompt}`` (the prompt text), ``{stage}`` (e.g. diagnostic or coding),
``{prompt_file}``, and ``{NAME_file}`` for every input file ``NAME`` (``{instructions_file}``,
``{history_file}``, ``{task_file}``, ...). A placeholder the row
does not provide is an `InputError` naming it. Outcome: exit 0 COMPLETED, any other exit or a start
failure ERROR (its detail names the memory cap when the kernel killed the tree for it, the scratch bound
when the tree filled its HOME/TMPDIR -- then even exit 0 is ERROR), wall-clock
budget exceeded TIMEOUT. The reply is stdout (trimmed, capped), so a command
agent can answer text-only stages such as ReqMemBench Phase A.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import (
    AgentInputs,
    AgentResult,
    AgentStatus,
    Budget,
    TrajectoryEvent,
    Usage,
)
from reqbench.core.agents.declared import takes
from reqbench.core.agents.state import state_folder
from reqbench.core.errors import InputError
from reqbench.core.sandbox import ProcessResult, describe, run_sandboxed

_PLACEHOLDER_RE = re.compile(r"\{([a-z][a-z0-9_]*)\}")
DEFAULT_TIMEOUT = 1800.0
TAIL = 4000


def render_template(template: str | Sequence[str], values: Mapping[str, str], *,
                    agent: str) -> list[str] | str:
    """Fill ``{name}`` placeholders; a string template gets shell-quoted values."""

    def fill(text: str, quote: bool) -> str:
        def sub(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in values:
                raise InputError(f"placeholder {{{key}}} has no value for this row (available: "
                                 f"{', '.join('{' + k + '}' for k in sorted(values))})",
                                 item=f"agent {agent!r}")
            return shlex.quote(values[key]) if quote else values[key]

        return _PLACEHOLDER_RE.sub(sub, text)

    if isinstance(template, str):
        return fill(template, quote=True)
    return [fill(str(part), quote=False) for part in template]


@dataclass
class CommandAgent:
    """Run a CLI once per row in the workspace; see the module docstring for placeholders/outcomes."""

    name: str
    argv_template: str | list[str]
    timeout: float | None = None
    env: dict[str, str] = field(default_factory=dict)
    network: bool = False
    parse_usage: Callable[[str], Usage | None] | None = None
    reply_cap_chars: int = 100_000
    output_cap_bytes: int = 10_000_000

    def values(self, workspace: Path, inputs: AgentInputs, prompt_file: Path | None) -> dict[str, str]:
        values = {"workspace": str(workspace), "prompt": inputs.prompt,
                  "stage": str(inputs.context.get("stage", ""))}
        for key, path in inputs.files.items():
            values[f"{key}_file"] = str(path if Path(path).is_absolute() else workspace / path)
        if prompt_file is not None and "prompt_file" not in values:
            values["prompt_file"] = str(prompt_file)
        return values

    def effective_timeout(self, budget: Budget) -> float:
        limits = [t for t in (self.timeout, budget.wall_seconds) if t is not None]
        return min(limits) if limits else DEFAULT_TIMEOUT

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        workspace = Path(workspace).absolute()
        started = time.monotonic()
        with state_folder("agent") as scratch:
            prompt_file = scratch / "prompt.txt"
            prompt_file.write_text(inputs.prompt, encoding="utf-8")
            command = render_template(self.argv_template,
                                      self.values(workspace, inputs, prompt_file), agent=self.name)
            # The agent sees its workspace (rw), its input files (ro) and the system; the protocol may
            # hide more (context "hide": e.g. the suite with its hidden checks, the run folder).
            binds = {scratch: scratch}
            binds.update({Path(p).absolute(): Path(p).absolute() for p in inputs.files.values()
                          if Path(p).is_absolute() and Path(p).exists()})
            proc = run_sandboxed(command, workspace, timeout=self.effective_timeout(budget),
                                 env=dict(self.env), network=self.network, readonly_binds=binds,
                                 output_cap_bytes=self.output_cap_bytes, bind_named_files=True,
                                 hide=[Path(p) for p in inputs.context.get("hide", ())])
        return self.result(command, proc, time.monotonic() - started)

    def result(self, command: list[str] | str, proc: ProcessResult, wall: float) -> AgentResult:
        """Map a finished process to an `AgentResult` (status, reply, usage, trajectory)."""
        stdout = proc.stdout.decode("utf-8", "replace")
        event = TrajectoryEvent("command", {
            "command": describe(command), "exit_code": proc.exit_code, "timed_out": proc.timed_out,
            "start_error": proc.start_error, "isolation": proc.isolation,
            "stdout_tail": stdout[-TAIL:], "stderr_tail": proc.stderr_tail(TAIL),
            "truncated": proc.truncated})
        usage = (self.parse_usage(stdout) if self.parse_usage else None) or Usage()
        event.usage = usage
        trajectory = [event]
        reply = stdout.strip()[: self.reply_cap_chars] or None
        if proc.timed_out:
            status, detail = AgentStatus.TIMEOUT, f"wall-clock limit reached after {wall:.1f}s"
        elif proc.start_error:
            status, detail = AgentStatus.ERROR, proc.start_error
        elif proc.exit_code == 0 and not proc.limit_notes():
            status, detail = AgentStatus.COMPLETED, ""
        else:
            status, detail = AgentStatus.ERROR, "; ".join(filter(None, [f"exit code {proc.exit_code}",
                                                                         proc.limit_notes()]))
        if reply is not None and status is AgentStatus.COMPLETED:
            trajectory.append(TrajectoryEvent("reply", {"text": reply}))
        return AgentResult(status=status, trajectory=trajectory, usage=usage, wall_seconds=wall,
                           reply=reply, detail=detail)


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _as_env(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    env = {}
    for pair in str(value).split(","):
        key, sep, val = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"env entry {pair!r} is not KEY=VALUE", item="agent 'command'")
        env[key.strip()] = val
    return env


@takes("template", "timeout", "env", "network", "name", "arg")
def make_command(template: str | list[str] | None = None, timeout: float | str | None = None,
                 env: Mapping[str, str] | str | None = None, network: bool | str = False,
                 **opts: Any) -> CommandAgent:
    """Factory for ``--agent command`` (``command:TEMPLATE`` passes the template as `arg`)."""
    template = template if template is not None else opts.pop("arg", None)
    if not template:
        raise InputError("the command agent needs a template (e.g. --agent-opt "
                         "template='my-agent --prompt-file {prompt_file} --repo {workspace}'; input-file "
                         "placeholders per protocol: docs/workspaces.md, Control agents)", item="agent 'command'")
    if not isinstance(template, str) and not (isinstance(template, list)
                                              and all(isinstance(a, str) for a in template)):
        raise InputError(f"template must be a shell string or a list of strings, not {template!r}",
                         item="agent 'command'")
    # `stage` is set by multi-stage protocols (e.g. takeover diagnostic vs coding); a command agent reads
    # it through the {stage} placeholder rather than as an option.
    unknown = set(opts) - {"arg", "name", "stage"}
    if unknown:
        raise InputError(f"unknown option(s) {sorted(unknown)}", item="agent 'command'")
    return CommandAgent(name=str(opts.get("name", "command")), argv_template=template,
                        timeout=float(timeout) if timeout is not None else None, env=_as_env(env),
                        network=_as_bool(network))
