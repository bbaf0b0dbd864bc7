"""A stored agent trajectory as ATIF steps (Agent Trajectory Interchange Format v1.x, the format Harbor
writes and Phoenix / NeMo read), so any agent's run can be read by those tools.

A stored trajectory is ``AgentResult.to_dict()``: typed events (``message``, ``command``, ``file_edit``,
``test_run``, ``reply``, ``note``) and the run's usage. ATIF wants steps with a ``source`` (``system``,
``user``, ``agent``), a ``message``, the agent's ``tool_calls`` and their ``observation``, and per-step
``metrics``; ``final_metrics`` totals the run. The mapping:

* a user message is a ``user`` step; a note is a ``system`` step (its data in ``extra``);
* an assistant message opens an ``agent`` step; the actions that follow it (command, file edit, test
  run) become that step's tool calls, their output its observation, until the next message;
* an action with no open agent step (tools that print actions without messages) gets an agent step
  with an empty message; a reply is an agent step unless it repeats the last agent message;
* step metrics come from an event's usage (what the tool reported); ``final_metrics`` from the
  result's usage, which for CLI presets is what the model gateway measured (``extra.usage_source``).

Only agent steps may carry metrics and tool calls (ATIF rule); step ids run from 1 across segments.
"""

from __future__ import annotations

import json
import time
from typing import Any

SCHEMA_VERSION = "ATIF-v1.6"
"""The ATIF version written: v1.6 readers and later (Harbor's models accept v1.0 to v1.8) read it."""
ACTIONS = {"command": "bash", "file_edit": "edit_file", "test_run": "run_tests"}
"""Stored action kinds and the tool name they are given in ATIF."""
_META = {"kind", "ts", "usage"}
_OUTPUT_KEYS = ("output", "stdout_tail", "stderr_tail", "summary", "detail")


def iso(ts: Any) -> str | None:
    """An event timestamp (seconds since the epoch) as ISO 8601 UTC, or None."""
    if not isinstance(ts, int | float) or isinstance(ts, bool):
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts % 1 * 1000):03d}Z"


def metrics(usage: Any) -> dict[str, Any] | None:
    """ATIF step metrics of a stored usage dict (None when it has no figure)."""
    if not isinstance(usage, dict):
        return None
    out = {k: usage[k] for k in ("prompt_tokens", "completion_tokens", "cost_usd")
           if isinstance(usage.get(k), int | float) and not isinstance(usage.get(k), bool)}
    return out or None


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _observation(event: dict[str, Any]) -> str:
    parts = [_text(event[k]) for k in _OUTPUT_KEYS if event.get(k) not in (None, "")]
    return "\n".join(parts)


class _Builder:
    def __init__(self, first_id: int, step_extra: dict[str, Any]) -> None:
        self.steps: list[dict[str, Any]] = []
        self.next_id = first_id
        self.step_extra = step_extra
        self.open: dict[str, Any] | None = None

    def add(self, source: str, message: str, event: dict[str, Any], extra: dict[str, Any] | None = None
            ) -> dict[str, Any]:
        step: dict[str, Any] = {"step_id": self.next_id, "source": source, "message": message}
        stamp = iso(event.get("ts"))
        if stamp:
            step["timestamp"] = stamp
        if source == "agent" and metrics(event.get("usage")):
            step["metrics"] = metrics(event.get("usage"))
        merged = {**self.step_extra, **(extra or {})}
        if merged:
            step["extra"] = merged
        self.next_id += 1
        self.steps.append(step)
        self.open = step if source == "agent" else None
        return step

    def action(self, event: dict[str, Any]) -> None:
        step = self.open if self.open is not None else self.add("agent", "", event)
        calls = step.setdefault("tool_calls", [])
        call_id = f"call_{step['step_id']}_{len(calls) + 1}"
        kind = event["kind"]
        arguments = {k: v for k, v in event.items() if k not in _META and k not in _OUTPUT_KEYS}
        calls.append({"tool_call_id": call_id, "function_name": ACTIONS[kind], "arguments": arguments})
        result: dict[str, Any] = {"source_call_id": call_id, "content": _observation(event)}
        step.setdefault("observation", {"results": []})["results"].append(result)


def steps_of(trajectory: list[dict[str, Any]], *, first_id: int = 1,
             step_extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """ATIF steps of one stored trajectory (a list of event dicts), numbered from `first_id`; every step's
    ``extra`` carries `step_extra` (e.g. the stage or turn it belongs to)."""
    b = _Builder(first_id, dict(step_extra or {}))
    last_agent_text: str | None = None
    for event in trajectory:
        if not isinstance(event, dict):
            continue
        kind = event.get("kind")
        if kind == "message":
            role = event.get("role")
            text = _text(event.get("content", event.get("tokens_line")))
            if role == "assistant":
                other = {k: v for k, v in event.items() if k not in _META | {"role", "content"}}
                b.add("agent", text, event, {"data": other} if other else None)
                last_agent_text = text
            else:
                b.add("user" if role == "user" else "system", text, event)
        elif kind in ACTIONS:
            b.action(event)
        elif kind == "reply":
            text = _text(event.get("content", event.get("text")))
            if text != last_agent_text:
                b.add("agent", text, event)
                last_agent_text = text
        else:  # a note, or a kind this exporter does not know: kept as a system step with its data
            data = {k: v for k, v in event.items() if k not in _META}
            if isinstance(event.get("usage"), dict):
                data["reported_usage"] = event["usage"]
            b.add("system", _text(data.get("text") or data.get("content") or kind), event,
                  {"event": kind, "data": data})
    return b.steps


def final_metrics(usage: Any, steps: list[dict[str, Any]], *, source: str,
                  extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """``final_metrics`` of a run: its usage totals (measured by `source`), the number of steps."""
    u = usage if isinstance(usage, dict) else {}
    out: dict[str, Any] = {"total_prompt_tokens": int(u.get("prompt_tokens") or 0),
                           "total_completion_tokens": int(u.get("completion_tokens") or 0),
                           "total_steps": len(steps), "extra": {"usage_source": source, **(extra or {})}}
    if isinstance(u.get("cost_usd"), int | float):
        out["total_cost_usd"] = float(u["cost_usd"])
    return out


def gateway_note(trajectory: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The note a CLI preset puts first: agent, version that ran, the gateway's measurements."""
    for event in trajectory:
        if isinstance(event, dict) and event.get("kind") == "note" and isinstance(event.get("gateway"), dict):
            return event
    return None
