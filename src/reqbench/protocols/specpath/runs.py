"""One matrix row: fresh base workspace + rendered history -> agent -> patch -> fresh verifier workspace.

Isolation (SpecPath "Every history receives a fresh R_i^0 under the same V_i and Π_i"): the agent's
workspace holds the base repository and the rendered history file only — never hidden tests, atom ids
or trace labels. The history file is removed before the change set is taken, the patch is checked for
forbidden content, then applied to a second, fresh base workspace where the verifier runs. Budgets come
from ``--agent-opt`` keys prefixed ``specpath.`` (removed before the agent is built):
``specpath.agent_timeout`` (seconds, default 1200), ``specpath.cost_limit`` (USD per row, default 0.25,
enforced where the agent reports cost; ``none`` opts out, `cost_limit`), ``specpath.verifier_timeout``
(seconds, default the family's, 120).
"""

from __future__ import annotations

import fnmatch
import json
import time
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import Field, field_validator

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.agents.option_text import positive_number
from reqbench.core.execute.outcomes import Reason
from reqbench.core.execute.settings import ProtocolOptions, split_settings
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.hashing import sha256_text
from reqbench.core.workspace import AgentFailure, PatchApplyError, materialize, remove_tree, safe_submission
from reqbench.core.workspace.patch_paths import patch_paths
from reqbench.protocols.specpath.family import HISTORY_FILE, Family, render_history
from reqbench.protocols.specpath.outcomes import row_outcome
from reqbench.protocols.specpath.row_result import SpecpathResult
from reqbench.protocols.specpath.verifier import run_verifier

DEFAULT_AGENT_TIMEOUT = 1200.0
DEFAULT_COST_LIMIT = 0.25
"""USD per row (SpecPath §4: "Mini has a USD 0.25 native cost limit")."""
PREFIX = "specpath."

INSTRUCTIONS = (
    "You are working in a software repository. The user's requests so far are in the file {file} at the "
    "repository root, oldest message first, and are repeated below. Implement what the conversation asks "
    "for as it stands after the last message, by editing the repository. Do not edit or delete {file}.\n\n"
    "{history}")


class SpecpathOptions(ProtocolOptions):
    """SpecPath's run settings: ``--agent-opt specpath.KEY=VALUE`` (SpecPath §4.3 "Run processing")."""

    agent_timeout: float = Field(DEFAULT_AGENT_TIMEOUT, gt=0, allow_inf_nan=False,
                                 description="The agent's wall-clock budget per row, seconds.")
    cost_limit: float | None = Field(DEFAULT_COST_LIMIT, description="The agent's dollar budget per row, USD "
                                     "(SpecPath §4: 0.25; `none` opts out, recorded); over it the row is "
                                     "budget_exhausted.")
    verifier_timeout: float | None = Field(None, gt=0, allow_inf_nan=False,
                                           description="The verifier's fixed budget, seconds (default: the family's).")
    allow_uncalibrated: bool = Field(False, description="Run families whose verifier calibration failed.")
    barrier_between_repeats: bool = Field(True, description="SpecPath §4.3: repeat r+1 starts only after every "
                                          "row of repeat r finished (repeats are comparable snapshots); "
                                          "`false` lifts it, so --concurrency is filled across repeats "
                                          "(recorded in the run's options and provenance).")

    @field_validator("cost_limit", mode="before")
    @classmethod
    def _cost_limit(cls, value: Any) -> float | None:
        return cost_limit(value)

    def dollar_budget(self) -> float | None:
        return self.cost_limit


def split_options(options: RunOptions) -> tuple[SpecpathOptions, dict[str, Any]]:
    """``--agent-opt`` -> (specpath settings, the agent's own options)."""
    return split_settings(options.agent_options, "specpath", SpecpathOptions)


def cost_limit(value: Any) -> float | None:
    """The per-row cost cap in USD (SpecPath §4 "Experiment": "Mini has a USD 0.25 native cost limit").

    Default `DEFAULT_COST_LIMIT` (0.25) for every scaffold; a completed step whose reported cost exceeds it
    is ``budget_exhausted`` (`core.execute.verdict`). ``--agent-opt specpath.cost_limit=none`` opts out
    (recorded in the run's options and in every row's ``cost_limit_usd``), as the paper's OpenHands rows
    had no equivalent hard cost control; an agent that reports no cost is never capped."""
    if value is None or str(value).strip().lower() in ("none", "off", ""):
        return None
    return positive_number(value, item=f"--agent-opt {PREFIX}cost_limit", unit="USD", alternative="none")


def configuration(agent: str, agent_options: dict[str, Any]) -> dict[str, str]:
    """The system configuration a row belongs to: ``{"config", "scaffold", "model"}``.

    Rule (SpecPath §4, "Experiment"): "we define an agent configuration by its model deployment, scaffold,
    prompts, tools, retry policy, and budget", and "each model-deployment–scaffold pair" is one system
    configuration. The scaffold is the run's agent spec, the model its ``model`` agent option (``--model``);
    the configuration is ``scaffold:model`` when a model is given, else the scaffold alone (control agents).
    So two models on one scaffold are two configurations, never duplicate rows, and any-CPV by model reads
    the model from the row, not from the configuration's name."""
    model = str(agent_options.get("model") or "")
    return {"config": f"{agent}:{model}" if model else agent, "scaffold": agent, "model": model}


def forbidden_paths(patch: str, patterns: list[str]) -> list[str]:
    """Touched paths (`patch_paths`: both sides of a rename, a deletion's old path) matching a forbidden glob
    (``**/`` also matches at the repository root), sorted."""
    bad = []
    for path in sorted(patch_paths(patch)):
        name = PurePosixPath(path).name
        for pat in patterns:
            if fnmatch.fnmatch(path, pat) or (pat.startswith("**/") and fnmatch.fnmatch(name, pat[3:])):
                bad.append(path)
                break
    return bad


class _Clock:
    """Wall-clock laps of a row's phases (setup, agent, diff, verify_setup, verify), in seconds."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round(now - self._last, 4)
        self._last = now


def run_row(family: Family, row: Row, ctx: RowContext) -> RowOutcome:
    """Execute one (family, condition, config, repeat) row and classify it (`outcomes.row_outcome`)."""
    settings, agent_options = split_options(ctx.options)
    work_dir = ctx.work_dir
    history = family.histories[row.condition]
    history_text = render_history(history)
    base = {"family": family.id, **configuration(row.agent, agent_options), "condition": row.condition,
            "repeat": row.repeat}
    clock = _Clock()
    ws = materialize(family.base_source, work_dir / "agent", overlay=True)  # the row owns its thread
    history_path = ws.path / HISTORY_FILE
    history_path.write_text(history_text, encoding="utf-8")
    inputs = AgentInputs(files={"history": history_path},
                         prompt=INSTRUCTIONS.format(file=HISTORY_FILE, history=history_text),
                         context={"family": family.id, "condition": row.condition})
    budget = Budget(wall_seconds=settings.agent_timeout, max_cost_usd=settings.cost_limit)
    artifacts = {"history": history_text.encode("utf-8")}
    clock.lap("setup")
    step = ctx.step(ws.path, inputs, budget, agent_options=agent_options,
                    answers={"reference_patch": family.reference_text, "row_key": row.key})
    clock.lap("agent")
    result = step.result
    extra: dict[str, Any] = {"history_sha256": sha256_text(history_text), "timings": clock.laps,
                             "cost_limit_usd": budget.max_cost_usd}
    artifacts["agent_result"] = json.dumps(result.to_dict(), default=str).encode("utf-8")
    extra.update(agent_status=result.status.value, cost_usd=result.usage.cost_usd,
                 agent_seconds=round(result.wall_seconds, 3))
    if step.reason is not None:
        return row_outcome(step.reason, base, detail=step.detail, artifacts=artifacts, extra=extra)
    remove_tree(history_path)  # whatever the agent turned it into
    delivered = safe_submission(ws)
    ws.close()
    clock.lap("diff")
    if isinstance(delivered, AgentFailure):
        return row_outcome(Reason.WORKSPACE_OVER_LIMIT, base, detail=delivered.reason, artifacts=artifacts,
                           extra={**extra, "workspace_rejected": delivered.to_dict()})
    patch = delivered.patch
    if delivered.skipped:
        extra["skipped"] = list(delivered.skipped)
    artifacts["patch"] = patch.encode("utf-8")
    extra["patch_sha256"] = sha256_text(patch)
    if not patch.strip():
        return row_outcome(Reason.EMPTY_SUBMISSION, base, artifacts=artifacts, extra=extra)
    bad = forbidden_paths(patch, family.spec.forbidden_paths)
    if bad:
        return row_outcome(Reason.FORBIDDEN_CONTENT, base, detail=f"patch touches {', '.join(bad)}",
                           artifacts=artifacts, extra=extra)
    return verify_submission(family, patch, work_dir / "verify", base, artifacts, extra,
                             settings.verifier_timeout, clock)


AGENT_STAGE = frozenset({Reason.AGENT_TIMEOUT, Reason.AGENT_EXIT, Reason.EMPTY_SUBMISSION,
                         Reason.BUDGET_EXHAUSTED, Reason.FORBIDDEN_CONTENT, Reason.METADATA})
"""Reasons decided before verification: re-evaluating them cannot change anything."""
_VERIFY_KEYS = ("outcome", "signature", "reason", "probes", "verifier_seconds")


def reevaluate_row(family: Family, previous: RowOutcome, options: RunOptions, work_dir: Path) -> RowOutcome:
    """Verify the frozen patch of `previous` again on a fresh base (pending rows on ``--resume``,
    `reqbench regrade --checks`); the agent is never run. Rows decided before verification, or without
    a frozen patch, keep their outcome."""
    patch = previous.artifacts.get("patch")
    stored = previous.result
    if not isinstance(stored, SpecpathResult):
        raise TypeError(f"a specpath row's result is a SpecpathResult, not {type(stored).__name__}")
    if patch is None or stored.reason in AGENT_STAGE or not stored.family:
        return previous
    if not options.recheck and previous.status is RowStatus.SCORED:
        return previous  # a judge-only regrade: the verifier has no judge
    settings, _ = split_options(options)
    ids = ("family", "config", "scaffold", "model", "condition", "repeat")
    kept = stored.stored()
    base = {k: kept[k] for k in ids if k in kept}
    extra = {k: v for k, v in kept.items() if k not in ids and k not in _VERIFY_KEYS}
    artifacts = {k: v for k, v in previous.artifacts.items() if k != "verifier_log"}
    return verify_submission(family, patch.decode("utf-8"), work_dir / "verify", base, artifacts, extra,
                             options.check_timeout or settings.verifier_timeout)


def verify_submission(family: Family, patch: str, scratch: Path, base: dict[str, Any],
                      artifacts: dict[str, bytes], extra: dict[str, Any],
                      timeout: float | None = None, clock: _Clock | None = None) -> RowOutcome:
    """Apply a frozen patch to a fresh base workspace and run the verifier (host-side verification)."""
    clock = clock or _Clock()
    vws = materialize(family.base_source, scratch, overlay=True)
    try:
        try:
            vws.apply(patch)
        except PatchApplyError as exc:
            return row_outcome(Reason.PATCH_APPLY, base, detail=str(exc), artifacts=artifacts, extra=extra)
        clock.lap("verify_setup")
        # vws is this function's own fresh base + frozen patch, never given to an agent: no copy needed
        run = run_verifier(family, vws.path, timeout, consume=True)
        clock.lap("verify")
    finally:
        vws.close()
    artifacts["verifier_log"] = run.detail.encode("utf-8")
    extra = {**extra, "probes": run.probes, "verifier_seconds": round(run.seconds, 3)}
    if run.harness_error:  # the check itself decides what is infrastructure (`core.checks`)
        return row_outcome(Reason.CHECK_INFRASTRUCTURE, base, detail=run.detail, artifacts=artifacts,
                           extra=extra)
    signature = run.signature(family.probes)
    reason = (Reason.PASSED if signature and all(signature)
              else Reason.VERIFIER_TIMEOUT if run.timed_out else Reason.CHECKS_FAILED)
    return row_outcome(reason, base, signature=signature, artifacts=artifacts, extra=extra)
