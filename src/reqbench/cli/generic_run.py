"""`reqbench run`: validate the suite, create or resume the run directory, execute, print the report.

Exit code 3 (`EXIT_NOTHING_MEASURED`) when every row ended invalid (no row scored, none pending that a
``--resume`` could still evaluate): the report exists, but the run measured nothing about the agent.

The consoles (rich) and the report are imported where they print: a ``--quiet`` run reaches its first row
without either.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

import typer

from reqbench import api
from reqbench.cli.protocol_lookup import protocol_for_suite, suite_spec
from reqbench.cli.screen import write
from reqbench.core import idle
from reqbench.core.agents.option_text import option_value
from reqbench.core.errors import InputError
from reqbench.core.execute.executor import EXECUTOR_NAMES
from reqbench.core.execute.options import options_from_json
from reqbench.core.execute.progress import progress_enabled
from reqbench.core.execute.suite import Suite, SuiteProtocol
from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.core.library_progress import ConsoleSteps
from reqbench.core.llm.pricing import parse_price, prices_to_json, read_price_file
from reqbench.core.store import RunStore, is_run_dir
from reqbench.core.store.diskfull import is_disk_full

EXIT_NOTHING_MEASURED = 3


def parse_agent_opts(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; VALUE is read as JSON when it parses (numbers, true, lists), else a string. An
    option the agent's factory declares as a string gets the text back (`core.agents.option_text`)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError("expected KEY=VALUE", item=f"--agent-opt {item}")
        out[key.strip()] = option_value(value)
    return out


def run_prices(items: list[str], file: Path | None) -> dict[str, list[float]]:
    """The run's own prices: `file` (``--prices``), then each ``--price MODEL=IN/OUT`` over it."""
    table = read_price_file(file) if file is not None else {}
    table.update(parse_price(item) for item in items)
    return prices_to_json(table)


def prices_origin(items: list[str], file: Path | None) -> str:
    """Where the run's own prices came from, for its provenance (`core.execute.price_source`)."""
    return ", ".join(filter(None, [f"--prices {file.absolute()}" if file is not None else "",
                                   "--price" if items else ""]))


def validate_suite(suite: Path, *, show_progress: bool = True) -> SuiteProtocol:
    """The suite's protocol, after printing every validation problem (InputError when there are any).

    Long validation steps (a takeover suite's admission checks) report each finished unit on stderr
    unless `show_progress` is False."""
    from reqbench.cli.consoles import err_console

    protocol: SuiteProtocol = api.validate(suite, on_problem=_print_problem,
                                           progress=ConsoleSteps(err_console) if show_progress else None)
    return protocol


def _print_problem(problem: str) -> None:
    from reqbench.cli.consoles import console, marked

    console.print(marked("✗", "red", problem))


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


def run_slug(protocol_name: str, suite: Path, agent: str) -> str:
    """``PROTOCOL-SUITE-AGENT`` as a folder name (the names of `reqbench demo`'s runs, the start of a
    default run directory); the suite's name is left out when it only repeats the protocol's (a bundled
    suite: ``journey-reference``, not ``journey-journey-reference``)."""
    parts = [protocol_name, *([suite.name] if suite.name != protocol_name else []), agent]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", "-".join(parts))


def default_run_dir(protocol_name: str, suite: Path, agent: str) -> Path:
    return Path("runs") / f"{run_slug(protocol_name, suite, agent)}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"


def warm_report_imports(quiet: bool) -> None:
    """Import what the closing report needs -- numpy (the interval estimators; `numpy.quantile` imports
    `numpy.ma`) and the report's own modules -- in a daemon thread at the first moment every row waits on
    its process (`core.idle.after_work`), instead of after the last row, where the report would wait for
    them (~0.1 s). Nothing with `quiet`: its headline shows estimates only (`quiet_line`)."""
    if quiet:
        return

    def warm() -> None:
        idle.after_work()
        try:
            import numpy.ma  # noqa: F401
            import numpy.random  # noqa: F401
        except ImportError:  # the report says so when it needs it
            pass
        import reqbench.cli.generic_report  # noqa: F401

    threading.Thread(target=warm, name="reqbench-warm", daemon=True).start()


def warm_sandbox() -> threading.Thread:
    """Fill the sandbox's per-process caches (`core.sandbox.warm`: the bubblewrap probe, the cgroup
    places, the host part of the view) and prepare the guard directory of pytest checks in a thread, while
    the command validates the suite and plans, instead of on the way to the first row and inside it."""
    def warm() -> None:
        try:
            from reqbench.core.sandbox.warm import warm_up

            if warm_up():
                from reqbench.core.checks.guarddir import guard_dir

                guard_dir()
        except Exception:  # noqa: BLE001 - the first launch makes the same calls and reports what fails
            pass

    thread = threading.Thread(target=warm, name="reqbench-warm-sandbox", daemon=True)
    thread.start()
    return thread


def run_display(quiet: bool) -> tuple[ConsoleSteps | None, Any, bool]:
    """What a run shows while it runs: admission steps, the progress bar's console and whether the bar is
    shown. Nothing with `quiet` (problems still are): such a run does not import the consoles before its end."""
    if quiet:
        return None, None, False
    from reqbench.cli.consoles import console, err_console

    return ConsoleSteps(err_console), console, progress_enabled(console, quiet)


def run_suite(suite: Path, options: RunOptions, run_dir: Path, *, resume: bool, executor_name: str = "local",
              quiet: bool = False) -> tuple[RunStore, Suite]:
    """`reqbench.api.execute` with the command line's console: problems, admission steps and progress."""
    warm_report_imports(quiet)
    warming = warm_sandbox()
    steps, console, show_progress = run_display(quiet)
    try:
        return api.execute(suite, options, run_dir, resume=resume, executor_name=executor_name,
                           on_problem=_print_problem, progress=steps, console=console, show_progress=show_progress)
    finally:  # never left running past the command (it may be making a probe cgroup)
        warming.join()


def stored_run_options(run_dir: Path, concurrency: int) -> tuple[Path, RunOptions]:
    """The suite and options a run directory was created with (``reqbench run --resume RUN_DIR``)."""
    with RunStore.open(run_dir, read_only=True) as store:
        meta = store.meta
    return Path(meta.suite_path), options_from_json(meta.options, concurrency=concurrency)


RUN_DEFINING = ("agent", "judge", "condition", "repeats", "seed", "agent_opt", "model", "base_url",
                "unsafe_no_sandbox", "price", "prices", "allow_unpriced", "allow_provider_tools", "environment",
                "out")
"""`reqbench run` parameters that define a run: a resumed run keeps its stored ones."""


def refuse_changes_on_resume(ctx: typer.Context, run_dir: Path, agent: str | None) -> None:
    """`reqbench run --resume RUN_DIR`: an `InputError` for a missing run directory, a suite given in its
    place, or any option that would define a different run (the run would silently keep its own)."""
    if not is_run_dir(run_dir):
        if not run_dir.exists():
            raise InputError("no run directory here; `reqbench run --resume RUN_DIR` continues a run that "
                             "`reqbench run` created", file=str(run_dir))
        raise InputError("is not a run directory (no run.sqlite); to continue a run give its directory "
                         "(`reqbench run --resume RUN_DIR`), or give the suite with its options and "
                         "--out RUN_DIR --resume", file=str(run_dir))
    given = [f"--{name.replace('_', '-')}" for name in RUN_DEFINING
             if _given(ctx, name)]
    if given:
        raise InputError(f"{', '.join(given)} cannot change a run being resumed: `reqbench run --resume "
                         f"{run_dir}` continues it with its stored options (only --executor, --concurrency, "
                         "--offline and --quiet apply). To run more repeats, conditions or seeds, start a new "
                         "run (`reqbench run SUITE ... --out NEW_DIR`), or compare configurations in a study "
                         "(`reqbench study run`, `reqbench study add`)", item="--resume")


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the user gave parameter `name` (on the command line), rather than it taking its default."""
    source = ctx.get_parameter_source(name)
    return getattr(source, "name", "DEFAULT") in ("COMMANDLINE", "ENVIRONMENT", "PROMPT")


def quiet_line(store: RunStore, suite: Suite) -> str:
    """``PROTOCOL AGENT: metric value, ... (scored/planned rows) -> RUN_DIR`` for ``--quiet``: the summary's
    headline estimates alone (the intervals and the report's accounting -- gradings, attrition, usage --
    are `reqbench report`'s)."""
    from reqbench.core.stats.intervals import estimates_only
    from reqbench.report.run_report import pick_grading
    from reqbench.report.tables import format_cell

    with estimates_only():  # the line shows estimates: no interval is resampled (nor numpy imported)
        headline = suite.summarize(store.outcomes(grading=pick_grading(store, None))).headline
    counts = store.counts()
    metrics = ", ".join(f"{name} {format_cell(cell)}" for name, cell in headline.items()) or "no headline"
    unsafe = "UNSAFE (no sandbox) " if store.meta.options.get("unsafe_no_sandbox") else ""
    return (f"{unsafe}{store.meta.protocol} {store.meta.options.get('agent', '')}: {metrics} "
            f"({counts['scored']}/{counts['planned']} rows scored) -> {store.run_dir}")


def resume_command(out: Path) -> str:
    """The command line that continues an interrupted run (its stored options are reused)."""
    return " ".join(shlex.quote(a) for a in ["reqbench", "run", "--resume", str(out)])


def run(
    ctx: typer.Context,
    suite: Path = typer.Argument(..., help="Suite directory (or a single task of a protocol), or "
                                "demo:NAME (a bundled suite); with --resume and no --agent, a run directory.",
                                callback=suite_spec),
    agent: str | None = typer.Option(None, "--agent", help="Agent name (e.g. reference, null, replay, llm, "
                                     "command, claude-code); required unless resuming a run directory."),
    judge: str = typer.Option("", "--judge", help="Judge: exact, token-overlap, word-overlap, replay:FILE, "
                              "llm:MODEL (default: the protocol's offline judge)."),
    condition: list[str] = typer.Option([], "--condition", help="Condition to run (repeatable; "
                                                                "default: the protocol's conditions)."),
    repeats: int = typer.Option(1, "--repeats", min=1, help="Repeats per (task, condition)."),
    seed: int = typer.Option(20260729, "--seed", help="Seed of the within-repeat shuffle."),
    out: Path | None = typer.Option(None, "--out", help="Run directory (default "
                                    "runs/<protocol>-<suite>-<agent>-<timestamp>)."),
    resume: bool = typer.Option(False, "--resume", help="Continue an existing run directory: `reqbench run "
                                "--resume RUN_DIR` reuses its stored options (only --executor and "
                                "--concurrency may change), or repeat the options with --out RUN_DIR."),
    executor: str = typer.Option("local", "--executor", help=f"One of {', '.join(EXECUTOR_NAMES)}."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Rows running at the same time."),
    agent_opt: list[str] = typer.Option([], "--agent-opt", help="Agent option KEY=VALUE (repeatable); never a "
                                        "key or token (refused: set REQBENCH_API_KEY in the environment)."),
    model: str | None = typer.Option(None, "--model", help="Model name (agent option 'model')."),
    base_url: str | None = typer.Option(None, "--base-url", help="OpenAI-compatible base URL "
                                        "(agent option 'base_url')."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar and no report: one headline line with "
                               "the run directory (`reqbench report RUN_DIR` prints the rest)."),
    offline: bool = typer.Option(False, "--offline", help="Replay model calls (judge and llm agent) from "
                                 "the run store only; an unrecorded call stops the run (exit 2)."),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help="Run a real agent even where "
                                           "bubblewrap cannot isolate it (recorded; every report warns)."),
    price: list[str] = typer.Option([], "--price", help="A model's price MODEL=IN/OUT in USD per 1M input / "
                                    "output tokens (repeatable; over --prices and the built-in table)."),
    prices: Path | None = typer.Option(None, "--prices", help="YAML/JSON file {MODEL: {input_per_1m, "
                                       "output_per_1m}} of model prices for this run."),
    allow_unpriced: bool = typer.Option(False, "--allow-unpriced", help="Let a dollar budget pass calls of "
                                        "models without a price, their cost unknown (recorded; reports say so)."),
    allow_provider_tools: bool = typer.Option(False, "--allow-provider-tools", help="Forward requests for tools "
                                              "the provider runs outside the sandbox: web search, URL fetches, MCP "
                                              "servers, code execution (recorded; reports say so)."),
    environment: str | None = typer.Option(None, "--environment", help="The task environment of rows whose task "
                                           "declares none: a YAML/JSON file with an environment block, or the "
                                           "block as inline JSON (built once before any row; docs/environments.md)."),
    extra: list[str] = typer.Argument(None, hidden=True),
) -> None:
    """Run a suite against an agent into a resumable run directory, then print the report.

    Isolation: every agent step and every check runs under bubblewrap with an allow-list view of the file
    system (system and toolchain read-only, its workspace read-write, nothing of the suite, run or
    caches), no capabilities, its own PID namespace and no network (presets that call a model provider
    share the host's network). Without bubblewrap a real agent is refused (exit 2) unless
    --unsafe-no-sandbox is given; control agents (null, reference, replay) always run. See SECURITY.md.


    Model calls of preset agents go through the run's model gateway, which forwards only the run's --model
    (and the tool's documented auxiliary models) and enforces the suite's budgets. Under a dollar budget a
    model needs a price: the built-in table, --prices FILE, --price MODEL=IN/OUT; or pass --allow-unpriced. Tools the
    provider runs outside the sandbox (web search, URL fetches, MCP, code execution) are refused unless
    --allow-provider-tools.

    SUITE is a directory, or demo:NAME or demo:NAME/TASK for a suite bundled with reqbench (from any
    directory). Exit 3 when every row ended invalid (none scored or pending): the run measured nothing.

    Example: reqbench run demo:takeover --agent reference
    """
    if extra:
        raise InputError(f"unexpected argument {extra[0]!r}: --resume takes no value; continue a run with "
                         "`reqbench run --resume RUN_DIR` alone, or repeat its options with `reqbench run SUITE "
                         "--agent A --out RUN_DIR --resume`", item="reqbench run")
    if resume and (is_run_dir(suite) or (agent is None and out is None)):
        refuse_changes_on_resume(ctx, suite, agent)
        out = suite
        suite, options = stored_run_options(out, concurrency)
        options = dataclasses.replace(options, offline=offline)
    else:
        if agent is None:
            raise InputError("--agent is required (or `reqbench run --resume RUN_DIR` to continue a run)")
        options = api.run_options(agent=agent, conditions=condition, repeats=repeats, seed=seed, judge=judge,
                                  concurrency=concurrency, agent_options=parse_agent_opts(agent_opt), model=model,
                                  base_url=base_url, offline=offline, unsafe_no_sandbox=unsafe_no_sandbox,
                                  prices=run_prices(price, prices), allow_unpriced=allow_unpriced,
                                  allow_provider_tools=allow_provider_tools, environment=environment)
        options = dataclasses.replace(options, prices_from=prices_origin(price, prices))
    suite = suite.resolve()
    if out is None:
        if resume:
            raise InputError("--resume needs the run directory: `reqbench run --resume RUN_DIR`, or --out")
        out = default_run_dir(protocol_for_suite(suite).name, suite, options.agent)
    try:
        store, loaded = run_suite(suite, options, out, resume=resume, executor_name=executor, quiet=quiet)
    except KeyboardInterrupt:
        interrupted(out)
    except Exception as exc:
        if is_disk_full(exc):
            disk_full(out, resume_command(out) if is_run_dir(out) else None)
        raise
    finish(store, loaded, quiet=quiet)


def interrupted(out: Path) -> NoReturn:
    """What an interrupted run kept and the command that continues it, on stderr; exit 130."""
    from reqbench.cli.consoles import err_console

    if is_run_dir(out):
        err_console.print(f"interrupted: finished rows are saved in {out}; continue with\n  {resume_command(out)}")
    else:
        err_console.print("interrupted before the first row finished; nothing was kept")
    raise typer.Exit(130) from None


def disk_full(out: Path, resume: str | None) -> NoReturn:
    """One sentence for a run (or study) whose disk filled: what was kept, and `resume`, the command that
    continues it (None: nothing was kept); exit 2. Stored attempts are whole (each is one transaction), so
    the run continues where it stopped."""
    from reqbench.cli.consoles import err_console, marked

    if resume is not None:
        err_console.print(marked("error:", "red", f"the disk holding {out} is full; finished rows are saved "
                                 f"there; free some space, then continue with\n  {resume}"))
    else:
        err_console.print(marked("error:", "red", f"the disk holding {out} is full before the first row "
                                 "finished; nothing was kept; free some space and run the command again"))
    raise typer.Exit(2) from None


def finish(store: RunStore, loaded: Suite, *, quiet: bool) -> None:
    """After the rows: the headline (`quiet`) or the report; exit 3 when the run measured nothing."""
    with store:
        if quiet:  # one headline line and the run directory (`reqbench report RUN_DIR` prints the rest)
            write(sys.stdout, quiet_line(store, loaded))  # plain: rich is not imported for one line
        else:
            from reqbench.cli.consoles import console
            from reqbench.cli.generic_report import print_report

            console.print(f"run directory: {store.run_dir}")
            print_report(store, loaded)
        counts = store.counts()
        unmeasured = unmeasured_rows(counts)
        example = first_invalid_detail(store)
    if counts["planned"] and not counts["scored"] and not counts["pending"]:
        from reqbench.cli.consoles import err_console, marked

        summary = ", ".join(f"{n} {status}" for status, n in unmeasured.items())
        err_console.print(marked("error:", "red", f"every row ended invalid ({summary} of {counts['planned']}): "
                                  "the run measured nothing" + (f"; first invalid row {example}" if example else "")))
        raise typer.Exit(EXIT_NOTHING_MEASURED)
