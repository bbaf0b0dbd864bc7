"""`regrade_run`: re-score the frozen submissions of a finished run into a new grading, never re-running
an agent.

Each row's selected original attempt (scored or pending; an invalid row has no submission) is handed to
`Suite.reevaluate` with the new options (judge; ``recheck`` says whether checks are run again), and
the result is stored as a new attempt of kind ``reevaluate``, linked to that parent attempt and labelled
with the grading. The original attempts stay as they are; `reqbench report --grading LABEL` picks one
grading (default: the latest). Resumable: rows that already have a scored attempt under the label are
skipped, pending ones are re-evaluated again.
"""

from __future__ import annotations

from reqbench.core.execute.runner import WORK_DIR, run_attempt
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
                checks: bool) -> dict[str, int]:
    """Re-grade every row with a frozen submission; returns counts (regraded, scored, pending, invalid,
    skipped: no submission, done: already graded under `label`)."""
    if label == ORIGINAL:
        raise ValueError("the original grading cannot be re-graded into")
    counts = dict.fromkeys(("regraded", "scored", "pending", "invalid", "skipped", "done"), 0)
    work_root = store.run_dir / WORK_DIR
    with store.exclusive():
        store.add_grading(label, options.judge, checks)
        with activate(store), offline_run(options.offline):
            for row in store.plan():
                attempts = store.attempts(row)
                if any(a.grading == label and a.status is RowStatus.SCORED for a in attempts):
                    counts["done"] += 1
                    continue
                parent = select_attempt(attempts)
                if parent is None or parent.status is RowStatus.INVALID:
                    counts["skipped"] += 1
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
    return counts
