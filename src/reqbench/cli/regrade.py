"""`reqbench regrade RUN_DIR`: re-score a run's frozen submissions with another judge (and, with
``--checks``, re-run the checks) into a new grading linked to the original attempts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from reqbench.cli.consoles import console
from reqbench.cli.protocol_lookup import protocol_by_name
from reqbench.core.errors import InputError
from reqbench.core.execute.options import options_from_json
from reqbench.core.execute.regrade import next_label, regrade_run
from reqbench.core.execute.runner import WORK_DIR
from reqbench.core.store import RunStore


def regrade(
    run_dir: Path = typer.Argument(..., help="A run directory made by `reqbench run`."),
    judge: str | None = typer.Option(None, "--judge", help="The judge of the new grading (default: the run's)."),
    checks: bool = typer.Option(False, "--checks", help="Also run the checks again on every frozen submission."),
    label: str | None = typer.Option(None, "--label", help="Name of the new grading (default regrade-N); "
                                     "give an existing label to continue that grading."),
    offline: bool = typer.Option(False, "--offline", help="Replay recorded model calls only."),
    timeout_rerun: float | None = typer.Option(None, "--timeout-rerun", min=0.001, max=604800,  # a week: keeps inf out
                                               help="Re-run only the "
                                               "timed-out rows under this budget in seconds (SpecPath: 2400): "
                                               "the agent of rows that ended agent_timeout (one new run), the "
                                               "checks of rows that ended verifier_timeout."),
) -> None:
    """Re-score the frozen submissions of a run without re-running any agent (except the agent of an
    agent-timeout row under --timeout-rerun); the old attempts stay, and `reqbench report --grading LABEL`
    picks a grading (default: original).

    Example: reqbench regrade runs/pace-demo --judge offline --label offline-judge
    Example: reqbench regrade runs/specpath --timeout-rerun 2400 --label rerun-2400
    """
    with RunStore.open(run_dir) as store:
        meta = store.meta
        protocol = protocol_by_name(meta.protocol)
        base = options_from_json(meta.options, work_dir=store.run_dir / WORK_DIR)
        options = dataclasses.replace(base, judge=judge or base.judge, recheck=checks, offline=offline)
        if judge is None and not checks and timeout_rerun is None:
            raise InputError("nothing to re-grade: give --judge, --checks and/or --timeout-rerun",
                             item="reqbench regrade")
        name = label or next_label(store)
        if name == "original":
            raise InputError("'original' is the run's own grading; choose another --label", item="--label")
        counts = regrade_run(store, protocol.load(Path(meta.suite_path)), options, label=name, checks=checks,
                             timeout_rerun=timeout_rerun)
    console.print(f"grading {name}: {counts['regraded']} row(s) re-graded ({counts['scored']} scored, "
                  f"{counts['pending']} pending, {counts['invalid']} invalid), {counts['skipped']} without a "
                  f"frozen submission, {counts['done']} already done"
                  + (f", {counts['agent_reruns']} agent re-run(s) at {timeout_rerun:g} s, "
                     f"{counts['not_timed_out']} without a timeout" if timeout_rerun else "")
                  + f"; report: reqbench report {run_dir} "
                  f"--grading {name}")
