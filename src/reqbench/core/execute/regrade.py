"""`regrade_run`: re-score the frozen submissions of a finished run into a new grading, never re-running
an agent.

Each row's selected original attempt (scored or pending; an invalid row has no submission) is handed to
`Suite.reevaluate` with the new options (judge; ``recheck`` says whether checks are run again), and
the result is stored as a new attempt of kind ``reevaluate``, linked to that parent attempt and labelled
with the grading. The original attempts stay as they are; `reqbench report --grading LABEL` picks one
grading (default: the latest). Resumable: rows that already have a scored attempt under the label are
skipped, pending ones are re-evaluated again. A pending attempt whose result says ``"frozen": false`` has
no frozen submission yet (a journey session stopped mid-way: finishing it asks the assistant for the turns
it never answered), so only ``reqbench run --resume`` may finish it; regrade counts it as skipped.

A *timeout re-run* (``timeout_rerun``, ``reqbench regrade --timeout-rerun SECONDS``) re-grades only the
rows whose selected original attempt ended ``verifier_timeout``, re-running their checks under the larger
budget (`RunOptions.check_timeout`). SpecPath ("Run processing") re-ran such rows at 2,400 s and linked
the re-runs to their originals by parent id; the fixed-budget result stays in the original grading, the
re-run in the new one, and the grading's note records the budget, so a report says which budget produced
each number.
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
from reqbench.core.store.active import activate
from reqbench.core.store.runstore import RunStore
from reqbench.core.store.selection import ORIGINAL, NextStep, select_attempt


def next_label(store: RunStore) -> str:
    """``regrade-N`` for the next free N."""
    taken = {g["label"] for g in store.gradings()}
    n = 1
    while f"regrade-{n}" in taken:
        n += 1
    return f"regrade-{n}"


def regrade_run(store: RunStore, suite: Suite, options: RunOptions, *, label: str,
                checks: bool, timeout_rerun: float | None = None) -> dict[str, int]:
    """Re-grade every row with a frozen submission (with `timeout_rerun`: every row whose verification
    timed out, its checks under that budget); returns counts (regraded, scored, pending, invalid,
    skipped: no submission, done: already graded under `label`, not_timed_out: left out of a timeout
    re-run)."""
    if label == ORIGINAL:
        raise ValueError("the original grading cannot be re-graded into")
    counts = dict.fromkeys(("regraded", "scored", "pending", "invalid", "skipped", "done", "not_timed_out"), 0)
    work_root = run_scratch(store.run_dir)
    note = ""
    if timeout_rerun is not None:
        if timeout_rerun <= 0:
            raise ValueError("a timeout re-run needs a positive budget")
        options = dataclasses.replace(options, check_timeout=timeout_rerun, recheck=True)
        checks, note = True, f"timeout re-run: checks of verifier_timeout rows at {timeout_rerun:g} s"
    with store.exclusive():
        store.add_grading(label, options.judge, checks, note)
        with activate(store), offline_run(options.offline):
            for row in store.plan():
                attempts = store.attempts(row)
                if any(a.grading == label and a.status is RowStatus.SCORED for a in attempts):
                    counts["done"] += 1
                    continue
                parent = select_attempt(attempts)
                if parent is None or parent.status is RowStatus.INVALID or parent.result.get("frozen") is False:
                    counts["skipped"] += 1
                    continue
                if timeout_rerun is not None and parent.reason != Reason.VERIFIER_TIMEOUT.value:
                    counts["not_timed_out"] += 1
                    continue
                previous = store.to_outcome(parent)
                work_dir = work_root / f"{sha256_text(row.key)[:16]}-regrade0"
                report = run_attempt(suite, row, options, NextStep.REEVALUATE, previous, work_dir)
                if report.input_error is not None:
                    raise report.input_error
                store.record_attempt(row, report.outcome, kind="reevaluate", started=report.started,
                                     finished=report.finished, parent=parent.attempt_no, grading=label)
                counts["regraded"] += 1
                counts[report.outcome.status.value] += 1
    remove_stale_attempt_dirs(work_root)  # each attempt removed its own folder: this removes the empty root
    return counts
