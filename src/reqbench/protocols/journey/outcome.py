"""A journey session's outcome: scoring a `SessionRecord` (`outcome_of`) and re-scoring a stored one
(`rescore`) without asking the assistant or the simulated user anything again.

The outcome keeps the whole frozen interaction as artifacts: ``transcript.json`` (the record without
diffs), every turn's diff, the final diff, every turn's workspace snapshot packed as ``turn_NNN.tar.gz``,
and the simulated user's reactions with their matching keys (``user_turns.json``, `frozen_user`; a
session run with a frozen user also says in ``result.frozen_user`` how many reactions were replayed).
`rescore` rebuilds the record from them; with ``recheck`` (``reqbench regrade
--checks``) it runs the hidden tests again on the base repository and on every snapshot, and the metrics
and capability scores are computed again (with the grading's judge). The simulated user's decisions stay
as recorded: they are part of the interaction, not of its grading.
"""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.errors import HarnessError
from reqbench.core.execute.outcomes import Reason, classified
from reqbench.core.execute.types import RowOutcome, RunOptions
from reqbench.core.hashing import pretty_json
from reqbench.core.workspace import remove_tree
from reqbench.protocols.journey.capability import session_capabilities
from reqbench.protocols.journey.checkpoints import restore_tree
from reqbench.protocols.journey.frozen_user import ARTIFACT as USER_TURNS
from reqbench.protocols.journey.frozen_user import replay_summary
from reqbench.protocols.journey.metrics import final_confidence, session_metrics
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.online import run_hidden_tests
from reqbench.protocols.journey.records import SessionRecord
from reqbench.protocols.journey.row_result import JourneyResult

TRANSCRIPT = "transcript.json"


def snapshot_name(turn: int) -> str:
    return f"turn_{turn:03d}.tar.gz"


def outcome_of(record: SessionRecord, instance: Instance, simulator_kind: str, judge_spec: str = "",
               simulator_model: str = "") -> RowOutcome:
    """The scored outcome: metrics and a compact per-turn trace in `result` (with the simulated user that
    produced them: kind and model); the full transcript and every turn's diff as artifacts."""
    if record.invalid_reason:  # an agent step the harness failed (`core.execute.verdict`)
        return classified(Reason(record.invalid_reason), JourneyResult(mode=record.mode), record.end_detail)
    metrics = session_metrics(record, instance)
    caps = session_capabilities(record, instance, judge_spec, final_confidence(record))
    trace = [{"turn": t.index, "disclosed": t.disclosed, "active": t.active, "stage": t.stage,
              "status": t.status, "changed_files": t.changed_files,
              "passed": sorted(n for n, ok in t.probes.items() if ok),
              "confidence": t.confidence_after, "steps": t.steps, "cost_usd": t.usage.get("cost_usd"),
              **({"workspace_rejected": t.workspace_rejected} if t.workspace_rejected else {})}
             for t in record.turns]
    frozen = replay_summary(record.user_turns)
    result = JourneyResult.model_validate({
        "mode": record.mode, "simulator": simulator_kind,
        **({"simulator_model": simulator_model} if simulator_model else {}), "end_reason": record.end_reason,
        **metrics.to_dict(), "capabilities": caps,
        "stage_exit_turn": {str(k): v for k, v in record.stage_exit_turn.items()}, "trace": trace,
        **({"frozen_user": frozen} if frozen is not None else {})})
    artifacts = {TRANSCRIPT: pretty_json(record.to_dict(with_diffs=False)).encode(),
                 "final.diff": record.final_diff.encode()}
    if record.user_turns:
        artifacts[USER_TURNS] = pretty_json(record.user_turns).encode()
    for t in record.turns:
        artifacts[f"turn_{t.index:03d}.diff"] = t.diff.encode()
        if t.index in record.snapshots:
            artifacts[snapshot_name(t.index)] = record.snapshots[t.index]
    return classified(Reason.EVALUATED, result, "session evaluated", artifacts)


def rescore(previous: RowOutcome, instance: Instance, options: RunOptions, work_dir: Path) -> RowOutcome:
    """Score the session stored in `previous` again (see module docstring). A session stored without
    its snapshots (before they were kept) keeps its outcome when the checks are to run again."""
    arts = previous.artifacts
    diffs = {int(n[5:8]): b.decode("utf-8") for n, b in arts.items() if n.startswith("turn_") and n.endswith(".diff")}
    record = SessionRecord.from_dict(json.loads(arts[TRANSCRIPT]), diffs, arts.get("final.diff", b"").decode())
    record.snapshots = {t.index: arts[snapshot_name(t.index)] for t in record.turns if snapshot_name(t.index) in arts}
    record.user_turns = json.loads(arts[USER_TURNS]) if USER_TURNS in arts else []
    recheck = options.recheck or previous.status.value != "scored"
    if recheck and len(record.snapshots) < len(record.turns):
        return previous
    if recheck:
        try:
            record.base_probes = run_hidden_tests(instance, instance.repo_dir).probes
            for turn in record.turns:
                blob = record.snapshots[turn.index]
                tree = work_dir / "rescore" / f"turn_{turn.index:03d}"
                restore_tree(blob, tree)
                run = run_hidden_tests(instance, tree)
                turn.probes, turn.tree = run.probes, run.tree
                remove_tree(tree)
        except HarnessError as exc:
            return classified(Reason.CHECK_INFRASTRUCTURE, previous.result, f"harness: {exc}", arts)
    stored = JourneyResult.of(previous.result)  # the instance itself (the store read it as one)
    return outcome_of(record, instance, stored.simulator or "none", options.judge, stored.simulator_model or "")
