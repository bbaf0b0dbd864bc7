"""The agent's trajectory on a row page: the attempt's totals, then one folded step per `<details>` whose
summary line says what the step was (kind, the first line of its command or text, exit code, tokens).

Inside a step every field is left-aligned; code and output (commands, their output, patches, tool
arguments, anything that is not text) are monospace, prose (replies, thoughts, messages) wraps as text.
Any stored trajectory of the known shape is shown (``{"trajectory" | "steps": [...], "usage", "reply"}``),
whatever the protocol."""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.store.selection import Attempt
from reqbench.core.views import fmt
from reqbench.report.viewer.blobs import blob_json
from reqbench.report.viewer.render import details, esc, kv_table
from reqbench.report.viewer.run_context import RunContext

NAMES = ("trajectory.json", "agent_result", "phase_a_trajectory.json")
"""The artifacts that hold an agent's trajectory."""
CODE_KEYS = frozenset({"command", "output", "stdout", "stderr", "observation", "action", "patch", "diff", "code",
                       "arguments", "tool_calls", "args", "result", "error"})
_SKIP = frozenset({"kind", "ts", "source", "usage", "exit_code", "returncode"})
_HEAD_KEYS = ("command", "action", "content", "message", "reply", "text", "thought")
_HEAD_CHARS = 110


def code(text: str) -> str:
    return f'<pre class="code">{esc(text)}</pre>'


def prose(text: str) -> str:
    return f'<div class="prose">{esc(text)}</div>'


def _field(key: str, value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    body = code(text) if key in CODE_KEYS or not isinstance(value, str) else prose(text)
    return f'<div class="field"><span class="key">{esc(key)}</span>{body}</div>'


def _headline(step: dict[str, Any]) -> str:
    for key in _HEAD_KEYS:
        value = step.get(key)
        if isinstance(value, str) and value.strip():
            line = value.strip().splitlines()[0]
            return line if len(line) <= _HEAD_CHARS else line[:_HEAD_CHARS - 1] + "…"
    return ""


def step_html(number: int, step: dict[str, Any]) -> str:
    kind = step.get("kind") or step.get("role") or step.get("type") or "step"
    exit_code = step.get("exit_code", step.get("returncode"))
    usage: dict[str, Any] = step["usage"] if isinstance(step.get("usage"), dict) else {}
    tokens = sum(int(v) for k, v in usage.items() if k.endswith("tokens") and isinstance(v, int))
    facts = [f"exit {esc(exit_code)}" if exit_code is not None else "", f"{tokens} tokens" if tokens else ""]
    summary = (f'<span class="num">#{number}</span> <b>{esc(kind)}</b> <code>{esc(_headline(step))}</code>'
               + "".join(f' <span class="meta">{f}</span>' for f in facts if f))
    fields = "".join(_field(k, v) for k, v in step.items() if k not in _SKIP and v not in (None, "", [], {}))
    return details(summary, fields or '<p class="meta">no content recorded</p>', cls="step")


def trajectory_html(run: RunContext, attempt: Attempt) -> str:
    parts = []
    for name in NAMES:
        data = blob_json(run, attempt, name)
        if not isinstance(data, dict):
            continue
        steps = data.get("trajectory") or data.get("steps") or []
        steps = [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []
        usage: dict[str, Any] = data["usage"] if isinstance(data.get("usage"), dict) else {}
        head = kv_table([("status", data.get("status")), ("wall seconds", fmt(data.get("wall_seconds"))),
                         ("prompt tokens", usage.get("prompt_tokens")),
                         ("completion tokens", usage.get("completion_tokens")), ("cost $", usage.get("cost_usd"))])
        reply = (f"<p class='meta'>final reply</p>{prose(str(data['reply']))}" if data.get("reply") else "")
        body = "".join(step_html(i, s) for i, s in enumerate(steps, 1)) or '<p class="meta">no steps recorded</p>'
        parts.append(details(f"trajectory: {esc(name)} ({len(steps)} steps)",
                             head + f'<div class="steps">{body}</div>' + reply, open_=True))
    return "<h3>trajectory</h3>" + "".join(parts) if parts else ""
