"""`reqbench run`: validate the suite, create or resume the run directory, execute, print the report.

Exit code 3 (`EXIT_NOTHING_MEASURED`) when every row ended invalid (no row scored, none pending that a
``--resume`` could still evaluate): the report exists, but the run measured nothing about the agent.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from reqbench import __version__
from reqbench.cli.protocol_lookup import protocol_for_suite, suite_spec
from reqbench.core.errors import InputError
from reqbench.core.execute.executor import EXECUTOR_NAMES, make_executor
from reqbench.core.execute.options import differing_options, options_to_json, with_work_dir
from reqbench.core.execute.progress import progress_enabled
from reqbench.core.execute.runner import WORK_DIR, execute_run
from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.core.sandbox import isolation_gate
from reqbench.core.store import RunMeta, RunStore, is_run_dir, utc_now

console = Console()
err_console = Console(stderr=True)

EXIT_NOTHING_MEASURED = 3


def parse_agent_opts(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; VALUE is read as JSON when it parses (numbers, true, lists), else a string."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError("expected KEY=VALUE", item=f"--agent-opt {item}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def validate_suite(suite: Path) -> Any:
    """The suite's protocol, after printing every validation problem (InputError when there are any)."""
    protocol = protocol_for_suite(suite)
    problems = protocol.validate(suite)
    for problem in problems:
        console.print(f"[red]✗[/red] {problem}", highlight=False, soft_wrap=True)
    if problems:
        raise InputError(f"{len(problems)} validation problem(s); fix them before running",
                         file=str(suite))
    return protocol


def unmeasured_rows(counts: dict[str, int]) -> dict[str, int]:
    """Of `RunStore.counts()`, the rows without a measurement: ``{"invalid": n, "pending": n, "unstarted": n}``
    (non-zero counts only; empty when every planned row is scored)."""
    return {key: counts[key] for key in ("invalid", "pending", "unstarted") if counts[key]}


def first_invalid_detail(store: RunStore) -> str | None:
    """``task/condition: first line of the detail`` of the first invalid row (why the harness gave up)."""
    for row, outcome in store.outcomes():
        if outcome.status is RowStatus.INVALID:
            line = (outcome.detail or "no detail recorded").strip().splitlines()[0][:200]
            return f"{row.task_id}/{row.condition}: {line}"
    return None


def default_run_dir(protocol_name: str, suite: Path, agent: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{protocol_name}-{suite.name}-{agent}")
    return Path("runs") / f"{slug}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"


def open_run(run_dir: Path, protocol: Any, suite: Path, options: RunOptions, *, resume: bool) -> RunStore:
    """Create `run_dir`, or reopen it with `resume` after checking it was made for the same run."""
    requested = options_to_json(options)
    if not is_run_dir(run_dir):
        if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
            raise InputError("exists and is not a run directory; choose another --out", file=str(run_dir))
        if run_dir.is_dir():
            run_dir.rmdir()
        return RunStore.create(run_dir, RunMeta(suite_path=str(suite), protocol=protocol.name,
                                                options=requested, created=utc_now(),
                                                reqbench_version=__version__))
    if not resume:
        raise InputError("run directory already exists; pass --resume to continue it or choose another "
                         "--out", file=str(run_dir))
    store = RunStore.open(run_dir)
    meta = store.meta
    diffs = differing_options(meta.options, requested)
    if meta.protocol != protocol.name:
        diffs.insert(0, "protocol")
    if Path(meta.suite_path) != suite:
        diffs.insert(0, "suite")
    if diffs:
        store.close()
        first = diffs[0]
        raise InputError(f"--resume with different options: {', '.join(diffs)} differ from the run "
                         f"(stored {first}: {_stored(meta, first)})", file=str(run_dir))
    return store


def _stored(meta: RunMeta, name: str) -> str:
    if name == "suite":
        return meta.suite_path
    if name == "protocol":
        return meta.protocol
    if name.startswith("agent_options."):
        return json.dumps(meta.options.get("agent_options", {}).get(name.split(".", 1)[1]))
    return json.dumps(meta.options.get(name))


def run_suite(suite: Path, options: RunOptions, run_dir: Path, *, resume: bool, executor_name: str = "local",
              quiet: bool = False) -> tuple[RunStore, Any]:
    """Validate, open the run directory, execute every unfinished row; returns the open store."""
    suite = suite.resolve()
    protocol = validate_suite(suite)
    rows = protocol.plan(suite, options)  # bad options surface before anything is written
    executor = make_executor(executor_name, options.concurrency)
    try:
        store = open_run(run_dir, protocol, suite, options, resume=resume)
        try:
            execute_run(store, protocol, suite, with_work_dir(options, store.run_dir / WORK_DIR),
                        rows=rows, executor=executor, show_progress=progress_enabled(console, quiet),
                        console=console)
        except BaseException:
            store.close()
            raise
    finally:
        executor.shutdown()
    return store, protocol


def resume_command(argv: list[str]) -> str:
    """The command line that continues an interrupted run: the same arguments plus --resume."""
    args = [Path(argv[0]).name if argv else "reqbench", *argv[1:]]
    if "--resume" not in args:
        args.append("--resume")
    return " ".join(shlex.quote(a) for a in args)


def run(
    suite: Path = typer.Argument(..., help="Suite directory (or a single task of a protocol), or "
                                "demo:NAME (a bundled suite).", callback=suite_spec),
    agent: str = typer.Option(..., "--agent", help="Agent name (e.g. reference, null, replay, llm)."),
    judge: str = typer.Option("exact", "--judge", help="Judge backend: exact, replay:FILE, llm:MODEL."),
    condition: list[str] = typer.Option([], "--condition", help="Condition to run (repeatable; "
                                                                "default: the protocol's conditions)."),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Repeats per (task, condition)."),
    seed: int = typer.Option(20260729, "--seed", help="Seed of the within-repeat shuffle."),
    out: Path | None = typer.Option(None, "--out", help="Run directory (default "
                                    "runs/<protocol>-<suite>-<agent>-<timestamp>)."),
    resume: bool = typer.Option(False, "--resume", help="Continue an existing run directory."),
    executor: str = typer.Option("local", "--executor", help=f"One of {', '.join(EXECUTOR_NAMES)}."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Rows running at the same time."),
    agent_opt: list[str] = typer.Option([], "--agent-opt", help="Agent option KEY=VALUE (repeatable)."),
    model: str | None = typer.Option(None, "--model", help="Model name (agent option 'model')."),
    base_url: str | None = typer.Option(None, "--base-url", help="OpenAI-compatible base URL "
                                        "(agent option 'base_url')."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
    offline: bool = typer.Option(False, "--offline", help="Replay model calls (judge and llm agent) from "
                                 "the run store only; an unrecorded call stops the run (exit 2)."),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help="Run a real agent even where "
                                           "bubblewrap cannot isolate it (recorded; every report warns)."),
) -> None:
    """Run a suite against an agent into a resumable run directory, then print the report.

    Isolation: every agent step and every check runs under bubblewrap with an allow-list view of the file
    system (system and toolchain read-only, its workspace read-write, nothing of the suite, run or
    caches), no capabilities, its own PID namespace and no network (presets that call a model provider
    share the host's network). Without bubblewrap a real agent is refused (exit 2) unless
    --unsafe-no-sandbox is given; control agents (null, reference, replay) always run. See SECURITY.md.


    SUITE is a directory, or demo:NAME or demo:NAME/TASK for a suite bundled with reqbench (from any
    directory). Exit 3 when every row ended invalid (none scored or pending): the run measured nothing.

    Example: reqbench run demo:takeover --agent reference
    """
    from reqbench.cli.generic_report import print_report

    agent_options = parse_agent_opts(agent_opt)
    if model is not None:
        agent_options["model"] = model
    if base_url is not None:
        agent_options["base_url"] = base_url
    isolation_gate(agent, unsafe_no_sandbox=unsafe_no_sandbox)  # before anything is created
    options = RunOptions(agent=agent, conditions=tuple(condition), repeats=repeats, seed=seed, judge=judge,
                         concurrency=concurrency, agent_options=agent_options, offline=offline,
                         unsafe_no_sandbox=unsafe_no_sandbox)
    if offline and executor != "local":
        raise InputError("--offline replays from the run store, which only the local executor reaches; "
                         "use --executor local", item="--offline")
    suite = suite.resolve()
    if out is None:
        if resume:
            raise InputError("--resume needs --out naming the run directory to continue")
        out = default_run_dir(protocol_for_suite(suite).name, suite, agent)
    try:
        store, protocol = run_suite(suite, options, out, resume=resume, executor_name=executor, quiet=quiet)
    except KeyboardInterrupt:
        err_console.print(f"interrupted: finished rows are saved in {out}; continue with the same options "
                          f"and --resume, e.g.\n  {resume_command(sys.argv)}", highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    with store:
        console.print(f"run directory: {store.run_dir}", highlight=False, soft_wrap=True)
        print_report(store, protocol)
        counts = store.counts()
        unmeasured = unmeasured_rows(counts)
        example = first_invalid_detail(store)
    if counts["planned"] and not counts["scored"] and not counts["pending"]:
        summary = ", ".join(f"{n} {status}" for status, n in unmeasured.items())
        err_console.print(f"[red]error:[/red] every row ended invalid ({summary} of {counts['planned']}): the "
                          "run measured nothing" + (f"; first invalid row {example}" if example else ""),
                          highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_NOTHING_MEASURED)
