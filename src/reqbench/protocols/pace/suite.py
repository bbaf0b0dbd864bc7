"""PACE-Bench as a `SuiteProtocol`: what `reqbench validate / run / report / demo` call; `load` gives a
`LoadedSuite` (the cases, read once) that plans, runs, re-evaluates and summarises rows.

Rows are ``(case, condition, agent, repeat)``. Conditions:

* ``prd`` (default) — the agent gets the base repository and ``prd/prd.md`` (never Code Points or the
  reference patch), its final workspace diff is scored;
* ``control:reference | control:empty | control:unrelated | control:identifier_only`` — the control patch
  is scored instead of an agent's work (paper Table 4), so `reqbench demo` exercises the controls.

A row whose score is blocked by unresolved evidence or a pending judge is *pending* and re-evaluated on
``--resume`` from its frozen patch; the agent is never re-run.

Every case is scored (PACE-Bench §4 "Evaluation scope": every configuration on all cases): an agent that
timed out, crashed, submitted nothing or left a patch that does not apply is scored on the candidate it
left (the empty candidate: every Code Point Missing, case score 0), with ``agent_reason`` recorded. Only
*operational* failures stay out of the case score ("Result validation": they "are retained separately from
accepted scoring records"): a provider or launcher failure the harness recorded in the agent's step is
*invalid* (re-run at the same budget, then attrition), a pending judge or unresolved evidence is *pending*;
both are counted in the attrition table (`core.execute.verdict`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core import tempdirs
from reqbench.core.agents.base import AgentInputs
from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.agent_step import AgentStep
from reqbench.core.execute.attrition import attrition_table
from reqbench.core.execute.outcomes import Reason, classified
from reqbench.core.execute.suite import Outcomes, RowContext, Suite, SuiteProtocol
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.suggest import did_you_mean
from reqbench.core.workspace import AgentFailure, remove_tree, safe_diff
from reqbench.protocols.pace import repo
from reqbench.protocols.pace.attribution import (
    attribute_case,
    process_signals,
    quality_observations,
    symptom_signal_counts,
)
from reqbench.protocols.pace.budget import agent_budget
from reqbench.protocols.pace.case import is_case_dir, is_suite_dir, load_suite
from reqbench.protocols.pace.controls import identifier_only_patch, unrelated_patch
from reqbench.protocols.pace.judges import judge_notice, withheld_success_rate
from reqbench.protocols.pace.options import PaceOptions
from reqbench.protocols.pace.row_result import PaceResult
from reqbench.protocols.pace.score import Scorer
from reqbench.protocols.pace.systems import case_means, planned_system, withheld_note
from reqbench.protocols.pace.validate import validate_path

if TYPE_CHECKING:
    from reqbench.core.protocol_study import ProtocolStudy
    from reqbench.core.summary import Summary
    from reqbench.core.views import AttemptRecord, RowView

TASK_INSTRUCTION = (
    "Implement every requirement in prd/prd.md; it is the final requirement for this task. Your working "
    "directory is the repository root (check it with pwd rather than assuming a path). Make the smallest "
    "complete production change that fits the existing code: study the existing patterns before editing, "
    "and run the relevant tests where you can. Do not commit, and do not look for ground-truth or "
    "evaluation artifacts. Work in this repository yourself, without delegating. Read independent files "
    "in parallel, but make edits and run tests one at a time. Before you finish, review the final diff "
    "and remove accidental or unrelated changes."
)

INTERVAL_ESTIMATOR = "se: standard error of the equal-weight case mean (sample SD / sqrt(n), paper §4.1)"

CONTROL_CONDITIONS = ("control:reference", "control:empty", "control:unrelated", "control:identifier_only")


class PaceProtocol(SuiteProtocol):
    name = "pace"
    options_model = PaceOptions
    """Its ``--agent-opt pace.KEY`` settings (`core.execute.settings`)."""
    result_model = PaceResult
    """Its rows' `RowOutcome.result`."""

    def row_view(self, record: AttemptRecord) -> RowView:
        """The row page's pace part, as data (`pace/view.py`)."""
        from reqbench.protocols.pace.view import row_view

        return row_view(record)

    def detect(self, path: Path) -> bool:
        return is_suite_dir(path) or is_case_dir(path)

    def validate(self, path: Path) -> list[str]:
        return validate_path(path)

    def load(self, path: Path) -> LoadedSuite:
        return LoadedSuite(self, Path(path))

    def dataset_stats(self, path: Path) -> Summary:
        """PACE-Bench's case scale and Code Point type shares of the suite at `path` (`reqbench stats`)."""
        from reqbench.protocols.pace.stats import dataset_stats

        return dataset_stats(Path(path))

    def study(self) -> ProtocolStudy:
        """Its paired value and paper-shaped study tables (`protocols.pace.study`)."""
        from reqbench.protocols.pace.study import STUDY

        return STUDY

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        options = RunOptions(agent="reference", judge="token-overlap", conditions=("prd", *CONTROL_CONDITIONS[1:]),
                             concurrency=2)
        return [(bundled_suite("pace"), options)]


class LoadedSuite(Suite):
    """A PACE suite with its cases loaded once."""

    def __init__(self, protocol: PaceProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path
        _suite, self.cases = load_suite(path)

    def plan(self, options: RunOptions) -> list[Row]:
        cases = self.cases
        conditions = options.conditions or ("prd",)
        for c in conditions:
            if c != "prd" and c not in CONTROL_CONDITIONS:
                raise InputError(
                    f"unknown pace condition {c!r}{did_you_mean(c, ('prd', *CONTROL_CONDITIONS))} "
                    f"(prd | {' | '.join(CONTROL_CONDITIONS)})",
                    item="--condition",
                )
        return [
            Row(case.id, cond, options.agent, r)
            for case in cases
            for cond in conditions
            for r in range(options.repeats)
        ]

    def environments(self) -> dict[str, Any]:
        """The task environment each case declares (``environment:`` in its case.yaml; DESIGN §14)."""
        from reqbench.core.execute.environments import declared_environments

        return declared_environments((c.spec.id, c.spec.environment, str(c.dir / "case.yaml"), c.dir)
                                     for c in self.cases)

    def _case(self, case_id: str) -> Any:
        for c in self.cases:
            if c.id == case_id:
                return c
        raise InputError(f"no case {case_id!r} in the suite", file=str(self.path))

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        """Score the control patch, or the candidate the agent left -- whatever way its step ended, unless
        the harness failed the step (a provider or launcher failure it recorded: invalid, re-run)."""
        options = ctx.options
        case = self._case(row.task_id)
        scorer = Scorer(case)
        if row.condition.startswith("control:"):
            return self._score(scorer, self._control_patch(scorer, row.condition.split(":", 1)[1]), options, [])
        step, patch, rejected = self._run_agent(scorer, ctx)
        trajectory = [e.to_dict() for e in step.result.trajectory]
        agent_status, agent_reason = step.result.status.value, step.reason.value if step.reason else None
        if step.invalid:
            assert step.reason is not None
            return classified(step.reason, PaceResult(case_id=case.id, score=None, agent_status=agent_status,
                                                      agent_reason=agent_reason, trajectory=trajectory),
                              step.detail)
        out = self._score(scorer, patch, options, trajectory)
        result = pace_result(out)
        result.agent_status, result.agent_reason = agent_status, agent_reason
        if rejected:  # the workspace could not be taken: the agent's failure, scored as the empty candidate
            result.workspace_rejected = rejected
        return out

    def _control_patch(self, scorer: Scorer, name: str) -> str:
        case, base = scorer.case, scorer.base
        if name == "reference":
            return case.reference_patch
        if name == "empty":
            return ""
        if name == "unrelated":
            return unrelated_patch(case, base)
        with tempdirs.folder("pace-ctl") as tmp:
            ref = repo.candidate_tree(base, case.reference_patch, Path(tmp) / "ref")
            return identifier_only_patch(case, base, ref)

    def _run_agent(self, scorer: Scorer, ctx: RowContext) -> tuple[AgentStep, str, str]:
        """The agent's step, the candidate patch it left ('' when its workspace was rejected), and why it was
        rejected ('' if it was not)."""
        ws = ctx.work_dir / "workspace"
        repo.candidate_tree(scorer.base, "", ws)
        (ws / "prd").mkdir(exist_ok=True)
        (ws / "prd" / "prd.md").write_text(scorer.case.prd, encoding="utf-8")
        reference = scorer.case.reference_patch  # a file's text or the fetched upstream change
        inputs = AgentInputs(files={"prd": ws / "prd" / "prd.md"}, prompt=TASK_INSTRUCTION)
        row_key = ctx.row.key if ctx.row is not None else ""
        budget, agent_options = agent_budget(ctx.options)  # the paper's iteration cap (pace/budget.py)
        step = ctx.step(ws, inputs, budget, agent_options=agent_options,
                        answers={"reference_patch": reference, "reference_patch_text": reference, "row_key": row_key})
        remove_tree(ws / "prd")  # whatever the agent turned it into
        patch = safe_diff(scorer.base, ws)
        if isinstance(patch, AgentFailure):
            return step, "", patch.reason
        return step, patch, ""

    def _score(
        self, scorer: Scorer, patch: str, options: RunOptions, trajectory: list[dict[str, Any]]
    ) -> RowOutcome:
        try:
            res = scorer.score(patch, options.judge)
        except repo.PatchApplyError as exc:  # the candidate's failure: scored as the empty candidate (§4)
            out = self._score(scorer, "", options, trajectory)
            pace_result(out).patch_apply_failure = str(exc)[:500]
            out.artifacts["patch"] = patch.encode()
            return out
        result = PaceResult.model_validate({
            **res.to_dict(), "attribution": attribute_case(scorer.case, res),
            "process_signals": process_signals(scorer.case, patch, trajectory),
            "quality": quality_observations(patch), "trajectory_events": len(trajectory)})
        if res.score is not None:
            return classified(Reason.EVALUATED, result, "scored", {"patch": patch.encode()})
        judge_down = any(p.judge_down for p in res.points)
        reason = Reason.JUDGE_UNAVAILABLE if judge_down else Reason.EVIDENCE_UNRESOLVED
        return classified(reason, result, "unresolved evidence" if reason is Reason.EVIDENCE_UNRESOLVED
                          else "judge pending", {"patch": patch.encode()})

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        patch = previous.artifacts.get("patch")
        if patch is None or previous.result.operational_failure:
            return previous
        return self._score(Scorer(self._case(row.task_id)), patch.decode("utf-8"), ctx.options, [])

    def summarize(self, outcomes: Outcomes) -> Summary:
        """`summary_data` as a typed `Summary` (`pace.summary`): headline mean case score per system."""
        from reqbench.protocols.pace.summary import summary  # the end of a run only

        return summary(self.summary_data(outcomes))

    def summary_data(self, rows: Outcomes) -> dict[str, Any]:
        """Tables (report convention) keyed by system ``agent/condition``: `systems` (case mean ± SE,
        success rate, support), `case_scores`, `loss_by_symptom` (weighted loss w(1-φ) summed over cases)
        and `symptom_signal` (symptom × process-signal co-occurrence, one row per system and symptom)."""
        typed = [(row, out, PaceResult.of(out.result)) for row, out in rows]
        groups: dict[tuple[str, str], list[tuple[Row, RowOutcome, PaceResult]]] = {}
        for item in typed:
            groups.setdefault((item[0].agent, item[0].condition), []).append(item)
        systems: dict[str, dict[str, Any]] = {}
        cases: dict[str, dict[str, Any]] = {}
        losses: dict[str, dict[str, float]] = {}
        signals: dict[str, dict[str, Any]] = {}
        planned = [case.id for case in self.cases]
        repeats = sorted({row.repeat for row, _ in rows})
        for (agent, cond), items in sorted(groups.items()):
            label = f"{agent}/{cond}"
            scored = [(o, r) for _, o, r in items if o.status is RowStatus.SCORED and not r.operational_failure]
            s = planned_system(items, planned, repeats)
            loss: dict[str, float] = {}
            for _, r in scored:
                for sym, v in (r.attribution or {}).get("loss_by_symptom", {}).items():
                    loss[sym] = loss.get(sym, 0.0) + v
            systems[label] = {
                **s.to_dict(), "score_note": withheld_note(items, s),
                # operational failures: kept apart, never scored (runs stored before every case was
                # scored also marked agent failures `operational_failure`)
                "operational": sum(1 for _, o, r in items if o.status is not RowStatus.SCORED
                                   or r.operational_failure),
                "pending": sum(1 for _, o, _ in items if o.status is RowStatus.PENDING),
                "invalid": sum(1 for _, o, _ in items if o.status is RowStatus.INVALID),
            }
            cases[label] = case_means(items)
            losses[label] = loss
            for symptom, counts in symptom_signal_counts(r.symptoms_and_signals() for _, r in scored).items():
                signals[f"{label} {symptom}"] = dict(counts)
        judges = sorted({r.judge for _, _, r in typed if r.judge})
        notices = sorted({n for j in judges if (n := judge_notice(j))})
        withheld = withheld_success_rate(judges)  # never a "success rate" from the heuristic (§3.1)
        for system in systems.values() if withheld else ():
            system["success_rate"] = None
            system["success_rate_note"] = withheld
        return {
            "judge": ", ".join(judges) or None,
            "judge_notice": " ".join(notices) or None,
            "interval": INTERVAL_ESTIMATOR,
            "systems": systems, "case_scores": cases, "loss_by_symptom": losses, "symptom_signal": signals,
            "attrition by reason (rows)": attrition_table(
                (f"{row.agent}/{row.condition}", o, bool(r.operational_failure)) for row, o, r in typed),
        }


def pace_result(outcome: RowOutcome) -> PaceResult:
    """The `PaceResult` of an outcome this protocol built (to add what the agent's step said)."""
    if not isinstance(outcome.result, PaceResult):
        raise TypeError(f"a PACE row's result is a PaceResult, not {type(outcome.result).__name__}")
    return outcome.result


PROTOCOL = PaceProtocol()
