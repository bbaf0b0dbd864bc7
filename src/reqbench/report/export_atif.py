"""`reqbench export RUN --format atif --out DIR`: one ATIF ``trajectory.json`` per row (its selected
attempt), at ``DIR/<row>/trajectory.json`` with the row key made file-name safe.

Where each protocol keeps the agent's trajectory (the artifacts of the attempt), and the requirement
context each segment carries:

=============  ===========================================  ==========================================
protocol       artifact                                     requirement context
=============  ===========================================  ==========================================
takeover       ``phase_a_trajectory.json`` (diagnostic),    ``stage`` of each segment (ReqMemBench
               ``trajectory.json`` (coding)                 Phase A / delivery), ``target`` the task
specpath       ``agent_result``                             ``revision``: the history condition
                                                            (SpecPath §3: direct, override, ...)
journey        ``transcript.json`` (one user + one agent    ``turn`` and ``stage`` of each turn
               step per turn; the user is the simulator)    (SWE-Journey §3)
any other      ``trajectory.json`` / ``agent_result``
=============  ===========================================  ==========================================

The root ``extra`` holds the row (key, task, condition, repeat, status, attempt) and ``requirement``
(``stage``, ``turn``, ``target``, ``revision``; null where the protocol has none); each step's
``extra`` repeats the stage or turn of its segment. ``final_metrics`` are the attempt's usage (measured
by the model gateway for CLI presets) and ``extra.gateway`` the row's totals from the run store.
A row without a stored trajectory (pace keeps only counts; control agents) gets a single system step
saying so, so every row has its file. Files are written atomically; a rerun overwrites them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reqbench.core.agents.atif import SCHEMA_VERSION, final_metrics, gateway_note, steps_of
from reqbench.core.hashing import atomic_write_text, sha256_text
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.export import result_rows
from reqbench.core.store.models import RunResultRow
from reqbench.core.store.runstore import RunStore

STAGE_ARTIFACTS = (("phase_a_trajectory.json", "diagnostic"), ("trajectory.json", "coding"),
                   ("agent_result", None))
"""Stored `AgentResult` artifacts in the order they ran, with the stage they belong to (the two-stage
artifacts are takeover's: Phase A, then delivery)."""


def row_dir_name(row_key: str) -> str:
    """A row key as one file-name-safe folder name (``task|cond|agent|0`` -> ``task__cond__agent__0``)."""
    return re.sub(r"[^A-Za-z0-9._@+-]+", "_", row_key.replace("|", "__")).strip("._") or "row"


def _blob_json(store: RunStore, row: RunResultRow, name: str) -> Any:
    sha = row.artifacts.get(name)
    if sha is None:
        return None
    try:
        return json.loads(store.artifacts.get(sha))
    except (ValueError, OSError):
        return None


def condition_context(protocol: str) -> str | None:
    """The requirement-context key under which the protocol's rows record their condition (its optional
    ``condition_context`` attribute, e.g. SpecPath's ``revision``: the history condition), None without one."""
    from reqbench.core.errors import InputError
    from reqbench.protocols.base import load_protocol

    try:
        return load_protocol(protocol).condition_context
    except InputError:
        return None


def _segments(store: RunStore, row: RunResultRow, condition_key: str | None) -> tuple[list[dict[str, Any]],
                                                                                       list[Any], dict[str, Any]]:
    """(ATIF steps, the agent results they came from, requirement context) of one row."""
    steps: list[dict[str, Any]] = []
    results: list[Any] = []
    context: dict[str, Any] = {"stage": None, "turn": None, "target": row.task_id, "revision": None}
    if condition_key:
        context[condition_key] = row.condition
    transcript = _blob_json(store, row, "transcript.json")
    if isinstance(transcript, dict) and isinstance(transcript.get("turns"), list):
        for turn in transcript["turns"]:
            tag = {"turn": turn.get("index"), "stage": turn.get("stage")}
            events = [{"kind": "message", "role": "user", "content": turn.get("user_message", "")},
                      {"kind": "message", "role": "assistant", "content": turn.get("reply", ""),
                       "usage": turn.get("usage"), "status": turn.get("status"),
                       "changed_files": turn.get("changed_files")}]
            steps += steps_of(events, first_id=len(steps) + 1, step_extra=tag)
        context["turn"] = len(transcript["turns"])
        results.append({"usage": transcript.get("assistant_usage"), "trajectory": []})
        return steps, results, context
    stages = []
    for name, stage in STAGE_ARTIFACTS:
        result = _blob_json(store, row, name)
        if not isinstance(result, dict):
            continue
        tag = {"stage": stage} if stage else {}
        stages += [tag["stage"]] if tag else []
        steps += steps_of(result.get("trajectory") or [], first_id=len(steps) + 1, step_extra=tag)
        results.append(result)
    if stages:
        context["stage"] = stages[0] if len(stages) == 1 else stages
    return steps, results, context


def _sum_usage(results: list[Any]) -> dict[str, Any]:
    total: dict[str, Any] = {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None}
    for r in results:
        u = r.get("usage") if isinstance(r, dict) else None
        if not isinstance(u, dict):
            continue
        total["prompt_tokens"] += int(u.get("prompt_tokens") or 0)
        total["completion_tokens"] += int(u.get("completion_tokens") or 0)
        if isinstance(u.get("cost_usd"), int | float):
            total["cost_usd"] = (total["cost_usd"] or 0.0) + float(u["cost_usd"])
    return total


def row_trajectory(store: RunStore, row: RunResultRow, gateway: dict[str, Any] | None = None,
                   condition_key: str | None = None) -> dict[str, Any]:
    """The ATIF document of one row (its selected attempt); `condition_key` as `condition_context` gives."""
    meta = store.meta
    steps, results, context = _segments(store, row, condition_key)
    if not steps:
        steps = [{"step_id": 1, "source": "system", "message": f"no agent trajectory was stored for this row "
                  f"(status {row.status}{': ' + row.reason if row.reason else ''})"}]
    notes = [n for r in results if isinstance(r, dict) and (n := gateway_note(r.get("trajectory") or []))]
    agent: dict[str, Any] = {"name": row.agent.partition("@")[0],
                             "version": str(notes[0].get("version") if notes and notes[0].get("version")
                                            else meta.reqbench_version)}
    model = (meta.options.get("agent_options") or {}).get("model")
    if model:
        agent["model_name"] = str(model)
    agent["extra"] = {"spec": row.agent, **({"binary": notes[0].get("binary")} if notes else {})}
    metrics = final_metrics(_sum_usage(results), steps, source="gateway" if notes else "agent",
                            extra={"gateway": gateway} if gateway else None)
    return {"schema_version": SCHEMA_VERSION, "session_id": f"{store.run_dir.name}/{row.row_key}",
            "agent": agent, "steps": steps, "final_metrics": metrics,
            "extra": {"reqbench": {"run": str(store.run_dir), "protocol": meta.protocol, "row_key": row.row_key,
                                   "task_id": row.task_id, "condition": row.condition, "repeat": row.repeat,
                                   "status": row.status, "attempt": row.attempt_no, "reason": row.reason},
                      "requirement": context}}


def export_atif(store: RunStore, out_dir: Path) -> int:
    """Write ``out_dir/<row>/trajectory.json`` for every row with an attempt; returns how many."""
    totals = StoreRecorder.for_store(store).totals()
    condition_key = condition_context(store.meta.protocol)
    used: set[str] = set()
    for row in result_rows(store):
        if row.attempt_no is None:
            continue
        name = row_dir_name(row.row_key)
        if name in used:  # two keys that differ only in unsafe characters
            name += "-" + sha256_text(row.row_key)[:8]
        used.add(name)
        doc = row_trajectory(store, row, totals.get(row.row_key), condition_key)
        atomic_write_text(Path(out_dir) / name / "trajectory.json",
                          json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    return len(used)
