"""Reading what third-party CLI agents print: usage, cost, reply, session id, typed trajectory events.

One parser per tool, each for the machine-readable output its preset asks for:

* Claude Code ``--output-format json``: one result object (``result``, ``session_id``, ``usage``,
  ``total_cost_usd``, ``subtype``/``is_error``);
* Codex ``exec --json``: JSON lines (``thread.started``, ``item.completed`` with agent messages,
  command executions and file changes, ``turn.completed`` with usage, ``turn.failed``/``error``);
* mini-swe-agent: its trajectory file (``info.exit_status``, ``info.model_stats``, messages with the
  raw provider responses);
* OpenHands: its own module, `openhands_output`;
* Aider: its plain-text ``Tokens: N sent, M received. Cost: $x message, $y session.`` lines.

`status` is set only when the output itself decides it (limits hit, a provider failure, a tool error);
otherwise the preset decides from the exit code. A provider failure the tool *prints* (rate limits, 5xx,
connection errors) is labelled ``PROVIDER_ERROR`` for the trajectory, but it is only the tool's word: the
row's verdict counts a provider failure only when the harness's gateway recorded one in that step
(`core.execute.verdict`), so a tool that prints "429" on the tasks it fails is scored on them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentStatus, TrajectoryEvent, Usage
from reqbench.core.workspace.fileio import read_regular

PROVIDER_FAILURE = re.compile(
    r"RateLimitError|APIConnectionError|InternalServerError|ServiceUnavailableError|BadGatewayError|"
    r"APITimeoutError|rate.?limit|overloaded|API Error: (?:429|5\d\d)|stream (?:error|disconnected)|"
    r"\b(?:429|500|502|503|504) (?:Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|"
    r"Gateway Timeout)", re.IGNORECASE)
MINI_PROVIDER_EXITS = {"RateLimitError", "APIConnectionError", "InternalServerError",
                       "ServiceUnavailableError", "Timeout", "APIError", "BadGatewayError", "APITimeoutError"}


@dataclass
class Parsed:
    usage: Usage = field(default_factory=Usage)
    events: list[TrajectoryEvent] = field(default_factory=list)
    reply: str | None = None
    session_id: str | None = None
    status: AgentStatus | None = None
    detail: str = ""


def _failure(message: str) -> AgentStatus:
    return AgentStatus.PROVIDER_ERROR if PROVIDER_FAILURE.search(message) else AgentStatus.ERROR


def _json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def parse_claude(stdout: str) -> Parsed:
    results = [o for o in _json_lines(stdout) if o.get("type") == "result"]
    if not results:
        return Parsed(detail="claude printed no JSON result")
    r = results[-1]
    u = r.get("usage") or {}
    prompt = sum(int(u.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                "cache_read_input_tokens"))
    cost = r.get("total_cost_usd")
    out = Parsed(usage=Usage(prompt, int(u.get("output_tokens") or 0),
                             float(cost) if cost is not None else None),
                 reply=r.get("result") if isinstance(r.get("result"), str) else None,
                 session_id=r.get("session_id"))
    out.events.append(TrajectoryEvent("note", {"tool": "claude", "num_turns": r.get("num_turns"),
                                               "subtype": r.get("subtype")}, usage=out.usage))
    if out.reply is not None:
        out.events.append(TrajectoryEvent("reply", {"content": out.reply}))
    subtype = str(r.get("subtype") or "")
    if subtype == "error_max_turns":
        out.status, out.detail = AgentStatus.TIMEOUT, "claude: turn limit reached"
    elif r.get("is_error") or subtype.startswith("error"):
        message = str(r.get("result") or subtype)
        out.status, out.detail = _failure(message), f"claude: {message[:500]}"
    return out


def parse_codex(stdout: str) -> Parsed:
    out = Parsed()
    for ev in _json_lines(stdout):
        kind = ev.get("type")
        if kind == "thread.started":
            out.session_id = ev.get("thread_id")
        elif kind == "turn.completed":
            u = ev.get("usage") or {}
            turn = Usage(int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0))
            out.usage.add(turn)
            out.events.append(TrajectoryEvent("note", {"tool": "codex", "turn": "completed"}, usage=turn))
        elif kind in ("turn.failed", "error"):
            err: dict[str, Any] = ev["error"] if isinstance(ev.get("error"), dict) else {}
            message = str(err.get("message") or ev.get("message") or kind)
            out.status, out.detail = _failure(message), f"codex: {message[:500]}"
        elif kind == "item.completed":
            item = ev.get("item") or {}
            itype = item.get("type") or item.get("item_type")
            if itype == "agent_message":
                out.reply = str(item.get("text") or "")
                out.events.append(TrajectoryEvent("message", {"role": "assistant", "content": out.reply}))
            elif itype == "command_execution":
                out.events.append(TrajectoryEvent("command", {
                    "command": item.get("command"), "exit_code": item.get("exit_code"),
                    "output": str(item.get("aggregated_output") or "")[:10_000]}))
            elif itype == "file_change":
                out.events.append(TrajectoryEvent("file_edit", {"changes": item.get("changes")}))
    if out.reply is not None:
        out.events.append(TrajectoryEvent("reply", {"content": out.reply}))
    return out


def parse_mini(trajectory: Path) -> Parsed:
    try:  # the scratch folder is the agent's: never follow a link it may have planted there
        data = json.loads(read_regular(trajectory, root=trajectory.parent).decode("utf-8", "replace"))
    except (OSError, json.JSONDecodeError):
        return Parsed(detail="mini-swe-agent wrote no readable trajectory")
    info = data.get("info") or {}
    out = Parsed()
    pending: list[str] = []
    for msg in data.get("messages") or []:
        extra = msg.get("extra") or {}
        role = msg.get("role")
        if role == "assistant":
            usage = (extra.get("response") or {}).get("usage") or {}
            step = Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
            out.usage.add(step)
            pending = [a.get("command", "") for a in extra.get("actions") or []]
            out.events.append(TrajectoryEvent("message", {"role": "assistant", "content": msg.get("content"),
                                                          "actions": list(pending)}, usage=step))
        elif "returncode" in extra:
            command = pending.pop(0) if pending else None
            out.events.append(TrajectoryEvent("command", {
                "command": command, "exit_code": extra["returncode"],
                "output": str(extra.get("raw_output", ""))[:10_000],
                "exception": extra.get("exception_info") or ""}))
    stats = info.get("model_stats") or {}
    cost = stats.get("instance_cost")
    out.usage.cost_usd = float(cost) if cost else None
    exit_status = str(info.get("exit_status") or "")
    out.reply = info.get("submission") or None
    out.detail = f"mini-swe-agent exit status: {exit_status or 'unknown'}"
    if exit_status == "Submitted":
        out.status = AgentStatus.COMPLETED
        out.events.append(TrajectoryEvent("reply", {"content": out.reply or ""}))
    elif exit_status in ("LimitsExceeded", "TimeExceeded"):
        out.status = AgentStatus.TIMEOUT
    elif exit_status in MINI_PROVIDER_EXITS:
        out.status = AgentStatus.PROVIDER_ERROR
    elif exit_status:
        out.status = AgentStatus.ERROR
    return out


_AIDER_TOKENS = re.compile(r"Tokens: ([\d.,]+k?) sent,.*?([\d.,]+k?) received\."
                           r"(?: Cost: \$([\d.]+) message, \$([\d.]+) session\.)?")


def _count(text: str) -> int:
    text = text.replace(",", "")
    return int(round(float(text[:-1]) * 1000)) if text.endswith("k") else int(float(text))


def _aider_tool_lines(lines: list[str], out: Parsed) -> None:
    """Aider's own ``> `` lines of one block: token summaries (self-reported usage of the previous
    answer), applied edits, and anything else (lint output, prompts it answered) as a note."""
    rest = []
    last = next((e for e in reversed(out.events) if e.kind == "message" and e.data.get("role") == "assistant"),
                None)
    for line in lines:
        tokens = _AIDER_TOKENS.search(line)
        edit = re.match(r"Applied edit to (.+)$", line)
        if tokens:
            step = Usage(_count(tokens.group(1)), _count(tokens.group(2)),
                         float(tokens.group(3)) if tokens.group(3) else None)
            out.usage.add(step)
            if tokens.group(4):
                out.usage.cost_usd = float(tokens.group(4))
            if last is not None and last.usage is None:
                last.usage = step
        elif edit:
            out.events.append(TrajectoryEvent("file_edit", {"path": edit.group(1).strip()}))
        elif line.strip():
            rest.append(line)
    if rest:
        out.events.append(TrajectoryEvent("note", {"tool": "aider", "output": "\n".join(rest)[:10_000]}))


def parse_aider_chat(text: str, out: Parsed) -> None:
    """Aider's chat history file: ``#### `` lines are the user's message, ``> `` lines aider's own
    output, everything else the model's answer (the last one is the reply)."""
    blocks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# aider chat started"):
            continue
        if line.startswith("#### "):
            kind, body = "user", line[5:]
        elif line.startswith("> ") or line.rstrip() == ">":  # not ``>>>>>>> REPLACE`` of an edit block
            kind, body = "tool", line[2:]
        else:
            kind, body = "assistant", line
        body = body.rstrip()
        if blocks and blocks[-1][0] == kind:
            blocks[-1][1].append(body)
        else:
            blocks.append((kind, [body]))
    for kind, lines in blocks:
        if kind == "tool":
            _aider_tool_lines(lines, out)
            continue
        content = "\n".join(lines).strip()
        if content:
            out.events.append(TrajectoryEvent("message", {"role": kind, "content": content}))
            if kind == "assistant":
                out.reply = content


def parse_aider(stdout: str, chat: str | None = None) -> Parsed:
    """From the chat history file when there is one (messages, edits, usage), else from the token and
    edit lines of stdout; provider errors always from stdout."""
    out = Parsed()
    if chat is not None:
        parse_aider_chat(chat, out)
    else:
        for m in _AIDER_TOKENS.finditer(stdout):
            out.events.append(TrajectoryEvent("message", {"role": "assistant", "tokens_line": m.group(0)}))
            _aider_tool_lines([m.group(0)], out)
        _aider_tool_lines(re.findall(r"^Applied edit to .+$", stdout, re.MULTILINE), out)
    errors = re.findall(r"litellm\.\w+Error[^\n]*", stdout)
    if errors:
        out.status, out.detail = _failure(errors[-1]), f"aider: {errors[-1][:500]}"
    return out
