"""File-edge models of a run: its metadata and the exported result rows (`reqbench schema run-*`), and how
an outcome's result maps to the store's check and score rows."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class RunMeta(BaseModel):
    """What a run directory was created for; `--resume` refuses to continue with different options."""

    suite_path: str = Field(description="Absolute path of the suite the run evaluates.")
    protocol: str = Field(description="Protocol name (takeover, specpath, journey, pace, ...).")
    options: dict[str, Any] = Field(
        description="The run options that define the estimand (agent, conditions, repeats, seed, judge, "
                    "agent options). Concurrency and executor are not part of it.")
    created: str = Field(description="UTC creation time, ISO 8601.")
    reqbench_version: str = Field(description="reqbench version that created the run.")
    provenance: dict[str, Any] = Field(
        default_factory=dict,
        description="What was evaluated, as established before the first row: the agent's program, path "
                    "and version (preflight), the isolation mode, the suite's content hash and its file "
                    "manifest {relative path: sha256} (a resume on a changed suite is refused).")


class RunResultRow(BaseModel):
    """One planned row with its selected attempt, exactly as `reqbench export` writes it (CSV header, JSONL
    keys and Parquet columns are these fields, in this order). The flat columns from ``outcome`` to
    ``seconds`` mean the same for every protocol (`reqbench.report.rowfacts`); they are filled by the
    export and null in the store's own `export_jsonl`."""

    model_config = ConfigDict(defer_build=True)  # built on first use: a run exports nothing

    row_key: str = Field(description="Stable row key 'task|condition|agent|repeat'.")
    task_id: str = Field(description="Task (or family / instance) id within the suite.")
    condition: str = Field(description="Condition the row was run under.")
    agent: str = Field(description="Agent configuration name.")
    repeat: int = Field(description="Repeat index, 0-based.")
    order_index: int = Field(description="Position of the row in the protocol's plan.")
    status: Literal["scored", "pending", "invalid", "unstarted"] = Field(
        description="Status of the selected attempt (earliest scored, else latest pending, else latest "
                    "invalid); 'unstarted' when the row has no attempt yet.")
    outcome: Literal["success", "failure", "invalid", "pending", "unstarted"] | None = Field(
        default=None, description="One vocabulary for every protocol: 'success' or 'failure' for a scored row "
        "(success: reason 'passed', or a graded row meeting its protocol's success rule), else the status.")
    protocol_outcome: str | None = Field(
        default=None, description="The protocol's own label of a scored row (takeover gate decision, journey "
        "end reason, PACE complete/incomplete, specpath outcome); null otherwise.")
    score: float | None = Field(default=None, description="The protocol's score of the row; null if none.")
    reason: str = Field(default="", description="Outcome taxonomy code of the selected attempt "
                        "(docs/runs.md, 'Row outcomes'; `reqbench.core.execute.outcomes.Reason`); empty for rows "
                        "stored before reasons existed.")
    detail: str = Field(description="Prose: the protocol's one-line explanation, then the attempt's own "
                        "detail (e.g. a traceback).")
    cost_usd: float | None = Field(default=None, description="Dollars of the row's model calls as recorded "
                                   "(gateway and model client, every attempt; replays not counted again); "
                                   "null without calls or prices.")
    tokens: int | None = Field(default=None, description="Prompt + completion tokens of the row's recorded "
                                 "model calls, counted like cost_usd; null without calls.")
    seconds: float | None = Field(default=None, description="The agent's wall-clock seconds; null if unknown.")
    attempt_no: int | None = Field(description="Number (1-based) of the selected attempt; null if none.")
    attempts: int = Field(description="How many attempts the row has in total.")
    grading: str = Field(default="original", description="Grading that produced the selected attempt: "
                         "'original' (reqbench run) or a `reqbench regrade` label.")
    parent_attempt: int | None = Field(default=None, description="The attempt a re-graded attempt re-scored.")
    started: str | None = Field(description="UTC start of the selected attempt, ISO 8601.")
    finished: str | None = Field(description="UTC end of the selected attempt, ISO 8601.")
    artifacts: dict[str, str] = Field(
        description="Artifacts of the selected attempt: name -> sha256 (blob at artifacts/ab/cdef...). JSON "
                    "text in CSV and Parquet.")
    result: dict[str, Any] = Field(description="The protocol's result of the selected attempt. JSON text in "
                                   "CSV and Parquet.")


class JudgeCall(BaseModel):
    """One recorded judge (or model) call: the evidence behind every label a score uses."""

    model_config = ConfigDict(defer_build=True)  # built on first use: most runs record no judge call

    request_key: str = Field(description="Content hash of the request (the replay cache key).")
    judge_id: str = Field(description="Judge backend and model, e.g. 'exact' or 'llm:gpt-x'.")
    contract: str = Field(description="Judge contract name (which prompt/label set was used).")
    request: dict[str, Any] = Field(description="The request as sent.")
    response: dict[str, Any] = Field(description="The response as received.")
    started: str = Field(description="UTC start, ISO 8601.")
    finished: str = Field(description="UTC end, ISO 8601.")


def checks_of(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``result["checks"]`` as (name, status, detail JSON) rows of ``check_results``."""
    checks = result.get("checks")
    if not isinstance(checks, dict):
        return []
    out = []
    for name, value in checks.items():
        if isinstance(value, dict):
            out.append((str(name), str(value.get("status", "")), json.dumps(value, sort_keys=True)))
        else:
            out.append((str(name), str(value), "{}"))
    return out


def scores_of(result: dict[str, Any]) -> list[tuple[str, float | None]]:
    """``result["scores"]`` numbers as (metric, value) rows of ``scores``."""
    scores = result.get("scores")
    if not isinstance(scores, dict):
        return []
    return [(str(k), None if v is None else float(v)) for k, v in scores.items()
            if v is None or isinstance(v, int | float)]
