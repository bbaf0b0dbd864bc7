"""`regrade_run`: re-score the frozen submissions of a finished run into a new grading, never re-running
an agent.

Each row's selected original attempt (scored or pending; an invalid row has no submission) is handed to
`Suite.reevaluate` with the new options (judge; ``recheck`` says whether checks are run again), and
the result is stored as a new attempt of kind ``reevaluate``, linked to that parent attempt and labelled
with the grading. The original attempts stay as they are; `reqbench report --grading LABEL` picks one
grading (default: original). Resumable: rows that already have a scored attempt under the label are
skipped, pending ones are re-evaluated again. A pending attempt whose result says ``"frozen": false`` has
no frozen submission yet (a journey session stopped mid-way: finishing it asks the assistant for the turns
it never answered), so only ``reqbench run --resume`` may finish it; regrade counts it as skipped.

A *timeout re-run* (``timeout_rerun``, ``reqbench regrade --timeout-rerun SECONDS``) follows SpecPath §4.3
("records whose generation quality was agent-timeout receive one 2,400-second run with the same task,
condition, model deployment, scaffold, and repeat. These reruns join to the primary schedule by
parent_schedule_id and are never pooled with the 1,200-second results"): a row whose selected original
attempt ended ``agent_timeout`` runs **the agent** again once under the larger budget
(`RunOptions.agent_timeout`, a new attempt of kind ``run``), a row that ended ``verifier_timeout`` re-runs
its checks on the frozen submission under that budget (`RunOptions.check_timeout`). Both are linked to
their originals by parent id in a named grading whose note records the budget; the fixed-budget results
stay in the original grading, so a report says which budget produced each number. Every other row is left
out (``not_timed_out``).

Re-running checks (``checks``, a timeout re-run) runs the frozen submissions' code again, so a real agent's
run is refused where bubblewrap cannot isolate it, unless it was made with ``--unsafe-no-sandbox``
(`isolation_gate`), before anything is written.
"""

from __future__ import annotations

import dataclasses

from reqbench.core.execute.outcomes import Reason
from reqbench.core.execute.runner import remove_stale_attempt_dirs, run_attempt
from reqbench.core.execute.scratch import run_scratch
from reqbench.core.execute.suite import Suite
from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.core.hashing import sha256_text
from reqbench.core.llm.run_access import offline_run
from reqbench.core.sandbox import isolation_gate
from reqbench.core.store.active import activate
from reqbench.core.store.runstore import RunStore
from reqbench.core.store.selection import ORIGINAL, Attempt, NextStep, next_step, select_attempt


def next_label(store: RunStore) -> str:
    """``regrade-N`` for the next free N."""
    taken = {g["label"] for g in store.gradings()}
    n = 1
    while f"regrade-{n}" in taken:
        n += 1
    return f"regrade-{n}"


def regrade_run(store: RunStore, suite: Suite, options: RunOptions, *, label: str,
                checks: bool, timeout_rerun: float | None = None) -> dict[str, int]:
    """Re-grade every row with a frozen submission (with `timeout_rerun`: the timed-out rows, see
    `timeout_step`); returns counts (regraded, agent_reruns: of them the agent re-runs, scored, pending,
    invalid, skipped: no submission, done: already graded under `label`, not_timed_out: left out of a
    timeout re-run)."""
    if label == ORIGINAL:
        raise ValueError("the original grading cannot be re-graded into")
    counts = dict.fromkeys(("regraded", "agent_reruns", "scored", "pending", "invalid", "skipped", "done",
                            "not_timed_out"), 0)
    note = ""
    if timeout_rerun is not None:
        if timeout_rerun <= 0:
            raise ValueError("a timeout re-run needs a positive budget")
        options = dataclasses.replace(options, check_timeout=timeout_rerun, agent_timeout=timeout_rerun,
                                      recheck=True)
        checks, note = True, (f"timeout re-run at {timeout_rerun:g} s: the agent of agent_timeout rows, the "
                              "checks of verifier_timeout rows")
    if checks:  # the frozen submissions' code runs again (and the agent, for a timeout re-run)
        isolation_gate(options.agent, unsafe_no_sandbox=options.unsafe_no_sandbox)
    work_root = run_scratch(store.run_dir)
    with store.exclusive():
        store.add_grading(label, options.judge, checks, note)
        with activate(store), offline_run(options.offline):
            for row in store.plan():
                attempts = store.attempts(row)
                if _finished(attempts, label):
                    counts["done"] += 1
                    continue
                parent = select_attempt(attempts)
                if (parent is None or parent.status is RowStatus.INVALID
                        or parent.result.frozen is False):
                    counts["skipped"] += 1
                    continue
                step = NextStep.REEVALUATE if timeout_rerun is None else timeout_step(parent)
                if step is None:
                    counts["not_timed_out"] += 1
                    continue
                previous = store.to_outcome(parent) if step is NextStep.REEVALUATE else None
                work_dir = work_root / f"{sha256_text(row.key)[:16]}-regrade0"
                report = run_attempt(suite, row, options, step, previous, work_dir)
                if report.input_error is not None:
                    raise report.input_error
                store.record_attempt(row, report.outcome, kind=report.kind, started=report.started,
                                     finished=report.finished, parent=parent.attempt_no, grading=label)
                counts["regraded"] += 1
                counts["agent_reruns"] += step is NextStep.RUN
                counts[report.outcome.status.value] += 1
    remove_stale_attempt_dirs(work_root)  # each attempt removed its own folder: this removes the empty root
    return counts


def timeout_step(parent: Attempt) -> NextStep | None:
    """What a timeout re-run does with a row (SpecPath §4.3): run the agent again under the longer budget
    when its selected original attempt ended ``agent_timeout``, re-run the checks when it ended
    ``verifier_timeout``, nothing (None) otherwise."""
    if parent.reason == Reason.AGENT_TIMEOUT.value:
        return NextStep.RUN
    if parent.reason == Reason.VERIFIER_TIMEOUT.value:
        return NextStep.REEVALUATE
    return None


def _finished(attempts: list[Attempt], label: str) -> bool:
    """`label` already has a finished attempt for the row: scored, or attrition by the retry rule
    (`selection.next_step` applied to that grading's attempts)."""
    mine = [dataclasses.replace(a, grading=ORIGINAL) for a in attempts if a.grading == label]
    return bool(mine) and next_step(mine) is NextStep.DONE
