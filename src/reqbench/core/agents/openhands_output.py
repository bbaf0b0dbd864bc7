"""Reading what the OpenHands CLI (``openhands --headless --json``, 1.x) leaves behind: its event stream,
its conversation state, and from them the stored trajectory, the reply and the status.

OpenHands 1.x prints one JSON object per line for every conversation event (the SDK's ``model_dump``
of the event; its system prompt is left out), among plain status lines:

* ``MessageEvent`` -- ``source`` ``user``/``agent``, ``llm_message.content`` text parts;
* ``ActionEvent`` -- the model's ``thought`` text parts, ``tool_name``, ``tool_call_id`` and the
  validated ``action`` (``command`` for ``terminal``, ``command``/``path`` for ``file_editor``,
  ``message`` for ``finish``, ``thought`` for ``think``);
* ``ObservationEvent`` -- the tool's result for a ``tool_call_id`` (``observation.content`` text parts,
  ``exit_code`` for the terminal, ``is_error``); ``AgentErrorEvent`` -- a tool call the SDK refused
  (``error``), sent back to the model;
* ``ConversationErrorEvent`` -- the run loop stopped (``code``: the exception's class, or
  ``MaxIterationsReached``; ``detail``).

The conversation's state is persisted as ``<persistence dir>/conversations/<id>/base_state.json``:
``execution_status`` (``finished``, ``error``, ``stuck``, ...) decides the status -- the CLI exits 0
whatever happened -- and ``stats.usage_to_metrics`` holds the tool's own token and cost figures (kept
as its self-report; the gateway measures the real ones). The persistence directory is the agent's
scratch space, so it is read only through regular files below it.
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentStatus, TrajectoryEvent, Usage
from reqbench.core.agents.preset_output import Parsed, _failure, _json_lines
from reqbench.core.workspace.fileio import read_regular

PROVIDER_CODES = {"LLMRateLimitError", "LLMTimeoutError", "LLMServiceUnavailableError", "LLMNoResponseError"}
"""ConversationErrorEvent codes (the SDK's exception classes) that mean the model provider failed."""
OUTPUT_LIMIT = 10_000
_CONVERSATION_ID = re.compile(r"^Conversation ID: ([0-9a-f]{32})\s*$", re.MULTILINE)
_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")


def _text(parts: Any) -> str:
    """The text of an SDK content list (``[{"type": "text", "text": ...}, ...]``)."""
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text")


def _ts(event: dict[str, Any]) -> float:
    """The event's own time (``timestamp``, ISO 8601 without a zone: the machine's local time), else now."""
    try:
        return datetime.fromisoformat(str(event.get("timestamp"))).timestamp()
    except (TypeError, ValueError, OverflowError):
        return time.time()


def _dict(obj: dict[str, Any], key: str) -> dict[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _arguments(event: dict[str, Any]) -> dict[str, Any]:
    call = _dict(event, "tool_call")
    try:
        args = json.loads(str(call.get("arguments") or "{}"))
    except json.JSONDecodeError:
        return {}
    return args if isinstance(args, dict) else {}


class _Reader:
    """Builds `Parsed` from the events in order; an action's event is completed by its observation."""

    def __init__(self) -> None:
        self.out = Parsed()
        self.pending: dict[str, TrajectoryEvent] = {}
        self.error: dict[str, Any] | None = None

    def add(self, kind: str, data: dict[str, Any], ev: dict[str, Any]) -> TrajectoryEvent:
        event = TrajectoryEvent(kind, data, ts=_ts(ev))
        self.out.events.append(event)
        return event

    def feed(self, ev: dict[str, Any]) -> None:
        kind = ev.get("kind")
        if kind == "MessageEvent":
            message = _dict(ev, "llm_message")
            role = "user" if ev.get("source") == "user" else "assistant"
            content = _text(message.get("content"))
            self.add("message", {"role": role, "content": content}, ev)
            if role == "assistant" and content:
                self.out.reply = content
        elif kind == "ActionEvent":
            self._action(ev)
        elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            self._observation(ev)
        elif kind == "ConversationErrorEvent":
            self.error = ev
            self.add("note", {"tool": "openhands", "error": ev.get("code"),
                              "detail": str(ev.get("detail") or "")[:OUTPUT_LIMIT]}, ev)

    def _action(self, ev: dict[str, Any]) -> None:
        thought = _text(ev.get("thought"))
        if thought.strip():
            self.add("message", {"role": "assistant", "content": thought}, ev)
        tool = str(ev.get("tool_name") or "")
        action = _dict(ev, "action") or _arguments(ev)
        if tool == "finish":
            self.out.reply = str(action.get("message") or "")
            return
        if tool == "think":
            self.add("message", {"role": "assistant", "content": str(action.get("thought") or "")}, ev)
            return
        if tool == "terminal":
            event = self.add("command", {"command": action.get("command"), "exit_code": None}, ev)
        elif tool == "file_editor":
            event = self.add("file_edit", {"path": action.get("path"), "command": action.get("command")}, ev)
        else:
            event = self.add("note", {"tool": tool, "arguments": action}, ev)
        if ev.get("tool_call_id"):
            self.pending[str(ev["tool_call_id"])] = event

    def _observation(self, ev: dict[str, Any]) -> None:
        event = self.pending.pop(str(ev.get("tool_call_id") or ""), None)
        if event is None:
            return
        if ev.get("kind") == "AgentErrorEvent":  # the SDK refused the call (bad arguments): nothing ran
            event.data.update(output=str(ev.get("error") or "")[:OUTPUT_LIMIT], is_error=True)
            return
        obs = _dict(ev, "observation")
        event.data["output"] = _text(obs.get("content") or ev.get("rejection_reason"))[:OUTPUT_LIMIT]
        if event.kind == "command":
            meta = _dict(obs, "metadata")
            code = obs.get("exit_code", meta.get("exit_code"))
            event.data["exit_code"] = code if isinstance(code, int) else None
        if obs.get("is_error"):
            event.data["is_error"] = True


def conversation_state(stdout: str, persistence: Path) -> dict[str, Any] | None:
    """``base_state.json`` of the conversation the CLI ran (named by its closing ``Conversation ID``
    line, else the only one there), or None."""
    conversations = persistence / "conversations"
    named = _CONVERSATION_ID.findall(stdout)
    if named:
        ids = [named[-1]]
    else:
        try:
            ids = [p.name for p in conversations.iterdir() if not p.is_symlink() and p.is_dir()]
        except OSError:
            return None
        if len(ids) != 1:
            return None
    try:
        data = json.loads(read_regular(conversations / ids[0] / "base_state.json", root=persistence))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _self_reported(state: dict[str, Any]) -> Usage:
    """The tool's own figures: every LLM it used (agent, condenser), summed."""
    usage = Usage()
    stats = _dict(state, "stats")
    metrics = _dict(stats, "usage_to_metrics")
    for m in metrics.values():
        if not isinstance(m, dict):
            continue
        tokens = _dict(m, "accumulated_token_usage")
        cost = m.get("accumulated_cost")
        usage.add(Usage(int(tokens.get("prompt_tokens") or 0), int(tokens.get("completion_tokens") or 0),
                        float(cost) if isinstance(cost, int | float) else None))
    return usage


def parse_openhands(stdout: str, persistence: Path) -> Parsed:
    """Trajectory and reply from the JSON event lines; status and self-reported usage from the state."""
    reader = _Reader()
    for ev in _json_lines(stdout):
        reader.feed(ev)
    out = reader.out
    state = conversation_state(stdout, persistence)
    if state is not None:
        sid = str(state.get("id") or "")  # the agent can write its state: only a UUID goes on a command line
        out.session_id = sid if _UUID.fullmatch(sid) else None
        out.usage = _self_reported(state)
    status = str((state or {}).get("execution_status") or "")
    err = reader.error
    if err is not None:
        code, detail = str(err.get("code") or "error"), str(err.get("detail") or "")
        out.detail = f"openhands: {code}: {detail[:500]}"
        if code == "MaxIterationsReached":
            out.status = AgentStatus.TIMEOUT
        elif code in PROVIDER_CODES:
            out.status = AgentStatus.PROVIDER_ERROR
        else:
            out.status = _failure(f"{code} {detail}")
    elif status == "finished":
        out.status, out.detail = AgentStatus.COMPLETED, "openhands: finished"
    elif status == "stuck":
        out.status, out.detail = AgentStatus.ERROR, "openhands: stopped by its stuck-loop detector"
    else:
        last = [line.strip() for line in stdout.splitlines() if line.strip() and not line.lstrip().startswith("{")]
        out.status = AgentStatus.ERROR
        out.detail = (f"openhands: conversation ended {status!r}" if status else
                      f"openhands ran no conversation: {(last[-1] if last else 'no output')[:500]}")
    if out.reply is not None:
        out.events.append(TrajectoryEvent("reply", {"content": out.reply}))
    return out
