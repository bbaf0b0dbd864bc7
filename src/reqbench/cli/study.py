"""`reqbench study ...`: run, resume, extend and report a study (one suite x named configurations).

Thin: parse -> call `reqbench.study` -> print. Exit 0 on success, 2 on bad input (`InputError`, naming the
study file, the configuration and the rule).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import typer
from rich.markup import escape

from reqbench.cli.consoles import console, err_console
from reqbench.core.errors import InputError
from reqbench.core.execute.executor import EXECUTOR_NAMES
from reqbench.core.execute.progress import progress_enabled
from reqbench.core.hashing import atomic_write_text
from reqbench.core.library_progress import ConsoleSteps
from reqbench.core.store.diskfull import is_disk_full
from reqbench.study import (
    StudyResult,
    Talk,
    add_configurations,
    load_study_file,
    parse_configuration,
    resume_study,
    run_study,
)

app = typer.Typer(help="Compare configurations (agent, model, options, judge) on one suite: rows of all "
                  "configurations interleave in one seeded order; each configuration is an ordinary run "
                  "directory under DIR/runs/<name>.", no_args_is_help=True)


def _talk(quiet: bool) -> Talk:
    def problem(text: str) -> None:
        console.print(f"[red]✗[/red] {escape(text)}", highlight=False, soft_wrap=True)

    return Talk(on_problem=problem, on_resume=_resuming, progress=None if quiet else ConsoleSteps(err_console),
                console=console, show_progress=progress_enabled(console, quiet))


def _resuming(plan: dict[str, tuple[int, int]]) -> None:
    """One line before a resumed study runs: rows kept, rows to run, per configuration."""
    kept, to_run = sum(k for k, _ in plan.values()), sum(r for _, r in plan.values())
    each = "; ".join(f"{name} {k} kept, {r} to run" for name, (k, r) in plan.items())
    console.print(f"resuming: {kept} finished row(s) kept, {to_run} to run ({each})", highlight=False,
                  soft_wrap=True)


def _print_result(result: StudyResult) -> None:
    for name, counts in result.counts.items():
        console.print(f"{name}: {counts['scored']} scored, {counts['pending']} pending, {counts['invalid']} invalid "
                      f"of {counts['planned']}", highlight=False, soft_wrap=True)
    console.print(f"study directory: {result.path}; report: reqbench study report {result.path}",
                  highlight=False, soft_wrap=True)


@app.command("run")
def run(
    target: Path = typer.Argument(..., help="STUDY.yaml (a new study), or with --resume the study directory."),
    out: Path | None = typer.Option(None, "--out", help="The new study directory (required without --resume)."),
    resume: bool = typer.Option(False, "--resume", help="Continue the study directory TARGET: rows with a "
                                "finished attempt are kept, the others run."),
    executor: str = typer.Option("local", "--executor", help=f"One of {', '.join(EXECUTOR_NAMES)}."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Rows running at the same time (across "
                                    "configurations)."),
    offline: bool = typer.Option(False, "--offline", help="Replay recorded model calls only."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Run a study: preflight every configuration, validate the suite once, then run the rows of all
    configurations interleaved in one seeded order (a barrier between repeats where the protocol keeps one).

    Example: reqbench study run study.yaml --out studies/sp --concurrency 2
    Example: reqbench study run --resume studies/sp
    """
    talk = _talk(quiet)
    if resume and out is not None:
        raise InputError("--resume takes the study directory as its argument, not --out", item=f"--out {out}")
    if not resume and out is None:
        raise InputError("--out DIR is required for a new study (or --resume DIR to continue one)",
                         item="reqbench study run")
    where = out if out is not None else target  # the study directory (new, or resumed)
    try:
        if resume:
            from reqbench.study.layout import StudyDir
            from reqbench.study.source import unadded_configurations

            for note in unadded_configurations(StudyDir.open(target)):
                err_console.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)
            result = resume_study(target, executor=executor, concurrency=concurrency, offline=offline, talk=talk)
        else:
            result = run_study(load_study_file(target), where, executor=executor, concurrency=concurrency,
                               offline=offline, talk=talk, source=target)
    except Exception as exc:
        if is_disk_full(exc):
            from reqbench.cli.generic_run import disk_full
            from reqbench.study.layout import is_study_dir

            disk_full(where, f"reqbench study run --resume {shlex.quote(str(where))}" if is_study_dir(where)
                      else None)
        raise
    _print_result(result)


@app.command("add")
def add(
    study_dir: Path = typer.Argument(..., help="The study directory."),
    configs: list[str] = typer.Argument(..., help="Configurations: name=NAME,agent=AGENT[,model=M][,judge=J]"
                                        "[,opt.KEY=VALUE]...[,agent_opts={KEY: VALUE, ...}], or a YAML file "
                                        "with one or a list of them (a study file too)."),
    executor: str = typer.Option("local", "--executor", help=f"One of {', '.join(EXECUTOR_NAMES)}."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Rows running at the same time."),
    offline: bool = typer.Option(False, "--offline", help="Replay recorded model calls only."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Add configurations to a study and run their rows; rows that exist are reused, never re-run.

    Example: reqbench study add studies/sp name=mini-gpt,agent=mini-swe-agent,model=gpt-5-mini
    Example: reqbench study add studies/sp 'name=cmd,agent=command,agent_opts={template: my-agent}'
    Example: reqbench study add studies/sp study.yaml   (the configurations the study does not have yet)
    """
    parsed = [c for text in configs for c in parse_configuration(text)]
    result = add_configurations(study_dir, parsed, executor=executor, concurrency=concurrency, offline=offline,
                                talk=_talk(quiet))
    console.print(f"added: {', '.join(result.added) or 'nothing new'}", highlight=False, soft_wrap=True)
    _print_result(result)


@app.command("rejudge")
def rejudge(
    study_dir: Path = typer.Argument(..., help="The study directory."),
    times: int = typer.Option(..., "--times", min=1, help="Judging repetitions wanted (rejudge-1..K); "
                              "repetitions already complete are kept."),
    config: list[str] = typer.Option([], "--config", help="Only this configuration (repeatable; default: "
                                     "every configuration with rows)."),
) -> None:
    """Grade every frozen submission again with its configuration's judge, K times, each time with fresh
    judge calls (no recorded answer is replayed); each repetition is the grading rejudge-k of the
    configuration's run. `study report` then compares execution and judging variation.

    Example: reqbench study rejudge studies/pace --times 3
    """
    from reqbench.study.rejudge import rejudge_study

    def skipped(name: str, why: str) -> None:
        console.print(f"{name}: skipped, nothing to vary ({why})", highlight=False, soft_wrap=True)

    for rep in rejudge_study(study_dir, times, config or None, on_skip=skipped):
        c = rep.counts
        console.print(f"{rep.config} {rep.label}: {c['regraded']} re-graded ({c['scored']} scored, {c['pending']} "
                      f"pending, {c['invalid']} invalid), {c['done']} already done, {c['skipped']} without a "
                      "frozen submission", highlight=False, soft_wrap=True)
    console.print(f"report: reqbench study report {study_dir}", highlight=False, soft_wrap=True)


@app.command("report")
def report(
    study_dir: Path = typer.Argument(..., help="The study directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    html: Path | None = typer.Option(None, "--html", help="Also write a self-contained HTML report."),
    csv: Path | None = typer.Option(None, "--csv", help="Also write one row per (configuration, row) as CSV "
                                    "(a .jsonl suffix writes JSONL, .parquet Parquet; another suffix is "
                                    "refused)."),
    pairs: bool = typer.Option(False, "--pairs", help="Add the paired differences between configurations per "
                               "condition on the protocol's units (family, target, instance, case): interval, "
                               "unit-level test, Benjamini-Hochberg adjusted p."),
) -> None:
    """Print the study's comparison tables: configurations, each run's headline, the protocol's paper-shaped
    tables with intervals and n, and with --pairs the matrix of paired differences.

    Example: reqbench study report studies/sp --pairs --html study.html
    """
    from reqbench.report.tables import rich_tables, table_data
    from reqbench.study.collect import collect
    from reqbench.study.html import study_html
    from reqbench.study.report import study_payload, study_tables

    if csv is not None:
        from reqbench.study.export import tidy_format, write_tidy

        tidy_format(csv)  # a suffix naming no format is refused before anything is read
    data = collect(study_dir)
    if csv is not None:
        n = write_tidy(data, csv)
        err_console.print(f"wrote {n} rows to {csv}", highlight=False, soft_wrap=True)
    if as_json:
        console.echo(json.dumps(study_payload(data, pairs=pairs), indent=2, ensure_ascii=False, default=str))
        tables = None
    else:
        tables = study_tables(data, pairs=pairs)
        for table in tables:
            for part in rich_tables(table_data(table.table), console.width):
                console.print(part)
            if table.estimator:
                console.print(f"  {table.estimator}", highlight=False, soft_wrap=True, style="dim")
    if html is not None:
        tables = tables if tables is not None else study_tables(data, pairs=pairs)
        atomic_write_text(html, study_html(data, tables, pairs=pairs))
