"""Agents that each cause one agent-side event of the verdict table (`core.execute.verdict.EVENTS`).

``make_event_agent(event=..., provider=URL)`` builds the agent; every one of them otherwise changes nothing,
so a step that completes is an empty submission. Real mechanisms only: the `command` agent's sandboxed
shell, the Claude Code preset run on a fake binary, the harness's own chat client against a loopback
provider, the sandbox launcher.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget
from reqbench.core.agents.registry import make_agent

HOSTILE_SCRATCH = (  # deep/deep/...: 1,500 levels (past Python's recursion limit, a path past PATH_MAX), made
    # by one `mkdir -p` (GNU mkdir walks the components itself); the path is built with shell builtins only
    'p=deep; i=1; while [ $i -lt 1500 ]; do p="$p/deep"; i=$((i+1)); done; '
    'for d in "$HOME" "$TMPDIR"; do cd "$d" || exit 9; mkdir -p "$p"; '
    'mkfifo fifo; mkdir many && (cd many && seq 1 100000 | xargs touch); done; exit 0')

EXIT_5_ON_IMPORT = (  # every Python file of the workspace ends the test process with exit code 5 on import
    "find . -name '*.py' -not -path './.git/*' | while IFS= read -r f; do "
    "printf '\\nimport os as _o, sys as _s\\nif \"pytest\" in _s.modules:\\n    _o._exit(5)\\n' >> \"$f\"; "
    "done; exit 0")

FAKE_CLAUDE = """#!/bin/sh
case "$1" in --version) echo "2.0.0 (Claude Code)"; exit 0;; esac
cat >/dev/null
echo '{"type":"result","subtype":"error","is_error":true,"result":"API Error: 429 Too Many Requests rate_limit_error"}'
exit 1
"""


class _Raising:
    name = "raising"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        raise RuntimeError("the adapter broke")

    def send(self, message: str, budget: Budget) -> AgentResult:
        raise RuntimeError("the adapter broke")

    def close(self) -> None:
        return None


@dataclass
class _Caller:
    """One chat call through the harness's client per run; a failure after retries ends the run as the
    adapter's ERROR (as a real adapter that caught it would)."""

    provider: str
    name: str = "caller"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        from reqbench.core.llm.client import ChatClient, LLMConfig
        from reqbench.core.llm.errors import ProviderError

        client = ChatClient(LLMConfig(base_url=self.provider, api_key="k", attempts=3, backoff_base=0.01,
                                      backoff_max=0.01, retry_after_max=0.01))
        try:
            client.complete([{"role": "user", "content": inputs.prompt[:50] or "hi"}], model="m",
                            sample=os.urandom(8).hex())
        except ProviderError as exc:
            return AgentResult(AgentStatus.ERROR, detail=str(exc))
        return AgentResult(AgentStatus.COMPLETED, reply="done")


@dataclass
class _Launcher:
    """Starts its tool through the sandbox with a bind whose source does not exist: the launcher fails."""

    name: str = "launcher"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        from reqbench.core.sandbox import run_sandboxed

        proc = run_sandboxed(["true"], workspace, timeout=30,
                             readonly_binds={Path("/nonexistent-reqbench-source"): Path("/opt/x")})
        status = AgentStatus.COMPLETED if proc.exit_code == 0 else AgentStatus.ERROR
        return AgentResult(status, detail=proc.start_error or "")


def fake_claude(folder: Path) -> Path:
    path = folder / "claude"
    path.write_text(FAKE_CLAUDE)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def make_event_agent(event: str, provider: str = "", binary: str = "", base_url: str = "", **_: Any) -> Any:
    if event == "adapter_raises":
        return _Raising()
    if event == "tool_exits_nonzero":
        return make_agent("command", template=["sh", "-c", "exit 3"])
    if event == "provider_text_without_call":
        return make_agent("claude-code", binary=binary, base_url=base_url, model="claude-sonnet-4-5")  # priced
    if event in ("upstream_429_then_200", "upstream_5xx_x3"):
        return _Caller(provider)
    if event == "agent_timeout":
        return make_agent("command", template="sleep 60")
    if event == "hostile_scratch":
        return make_agent("command", template=["sh", "-c", HOSTILE_SCRATCH])
    if event == "empty_submission":
        return make_agent("null")
    if event == "launcher_failure":
        return _Launcher()
    if event == "check_exits_unexpectedly_twice":
        return make_agent("command", template=["sh", "-c", EXIT_5_ON_IMPORT])
    raise ValueError(event)
