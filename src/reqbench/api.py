"""The library entry point: `run` a suite against an agent into a run directory, `report` a run directory.

The command line, the benchmarks and the tests go through `execute` (one lane of `core.execute.lanes`, the
plan-and-execute a study runs its configurations through); `run` is its keyword form for scripts and
notebooks::

    import reqbench

    handle = reqbench.run("demo:specpath", agent="reference", out="runs/sp")
    print(handle.headline())            # {'FCR direct': 1.0, 'CPV any': 0.0}
    payload = reqbench.report("runs/sp")  # the same JSON `reqbench report --json` prints

Nothing is created unless preflight, validation and planning pass; a run directory this call created is
removed again when the run fails before its first attempt is stored (`core.execute.lifecycle`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions

ProblemSink = Callable[[str], None]


@dataclass
class RunHandle:
    """A finished (or interrupted-and-saved) run: where it is and what it counted."""

    run_dir: Path
    protocol: str
    counts: dict[str, int] = field(default_factory=dict)
    """`RunStore.counts()` when the run ended: planned, scored, pending, invalid, unstarted, attempts."""

    def report(self, grading: str | None = None) -> dict[str, Any]:
        """The run's report payload (what `reqbench report --json` prints)."""
        return report(self.run_dir, grading=grading)

    def headline(self) -> dict[str, Any]:
        """The few numbers that compare runs (the protocol summary's headline), e.g. ``{"FCR direct": 1.0}``."""
        found: dict[str, Any] = self.report().get("summary", {}).get("headline", {})
        return found


def resolve_suite(suite: str | Path) -> Path:
    """A suite directory, or ``demo:NAME[/TASK]`` for a bundled suite, as an absolute path."""
    from reqbench.core.bundled import resolve_suite as resolve_spec

    return Path(resolve_spec(suite)).resolve()


def validate(suite: Path, *, on_problem: ProblemSink | None = None, progress: Any = None) -> Any:
    """The suite's protocol after validation; each problem goes to `on_problem`, then one `InputError`.

    `progress` is a `core.library_progress.StepReporter` for long validation steps (takeover admission), or None."""
    from reqbench.core.execute.suite import SuiteProtocol
    from reqbench.core.library_progress import watching
    from reqbench.protocols.lookup import protocol_for_suite

    protocol: SuiteProtocol = protocol_for_suite(suite)
    with watching(progress):
        problems = protocol.validate(suite)
    for problem in problems:
        if on_problem is not None:
            on_problem(problem)
    if problems:
        shown = "" if on_problem is not None else ": " + "; ".join(problems[:3])
        raise InputError(f"{len(problems)} validation problem(s); fix them before running{shown}",
                         file=str(suite))
    return protocol


def execute(suite: Path, options: RunOptions, run_dir: Path, *, resume: bool = False,
            executor_name: str = "local", on_problem: ProblemSink | None = None, progress: Any = None,
            console: Any = None, show_progress: bool = False) -> tuple[Any, Any]:
    """Check, validate, load and plan the suite as one lane (`core.execute.lanes`, the path a study's
    configurations take too), open the run directory, execute every unfinished row; returns the open
    `RunStore` and the loaded `Suite` (the caller closes the store)."""
    from reqbench.core.execute.lanes import LaneSpec, execute_lanes, plan_lanes
    from reqbench.protocols.lookup import protocol_for_suite

    planned = plan_lanes(Path(suite).resolve(), [LaneSpec(Path(run_dir), options)], resume=resume,
                         detect=protocol_for_suite, validate=validate, on_problem=on_problem, progress=progress)
    stores = execute_lanes(planned, resume=resume, seed=options.seed, executor_name=executor_name,
                           show_progress=show_progress, console=console)
    return stores[""], planned.suite


def run_options(*, agent: str, conditions: Sequence[str] = (), repeats: int = 1, seed: int = 20260729,
                judge: str = "", concurrency: int = 1, agent_options: dict[str, Any] | None = None,
                model: str | None = None, base_url: str | None = None, offline: bool = False,
                unsafe_no_sandbox: bool = False, prices: dict[str, list[float]] | None = None,
                allow_unpriced: bool = False, allow_provider_tools: bool = False,
                environment: str | None = None) -> RunOptions:
    """The `RunOptions` of `reqbench run`'s arguments; `model`/`base_url` become the agent options of the
    same names; `environment` is ``--environment FILE|SPEC`` (validated here: `InputError`)."""
    from reqbench.core.execute.environments import parse_option

    block, block_dir = parse_option(environment) if environment is not None else (None, None)
    opts = dict(agent_options or {})
    if model is not None:
        opts["model"] = model
    if base_url is not None:
        opts["base_url"] = base_url
    return RunOptions(agent=agent, conditions=tuple(conditions), repeats=repeats, seed=seed, judge=judge,
                      concurrency=concurrency, agent_options=opts, offline=offline,
                      unsafe_no_sandbox=unsafe_no_sandbox, prices=dict(prices or {}), allow_unpriced=allow_unpriced,
                      allow_provider_tools=allow_provider_tools, environment=block, environment_dir=block_dir)


def run(suite: str | Path, *, agent: str, out: str | Path, resume: bool = False, executor: str = "local",
        **options: Any) -> RunHandle:
    """Run `suite` (a directory or ``demo:NAME``) against `agent` into the run directory `out`.

    Keyword options are `run_options`'s (conditions, repeats, seed, judge, concurrency, agent_options, model,
    base_url, offline, unsafe_no_sandbox, prices, allow_unpriced, allow_provider_tools, environment). Raises
    `InputError` for bad input (nothing is created) and returns a handle once every row has ended."""
    store, loaded = execute(resolve_suite(suite), run_options(agent=agent, **options), Path(out), resume=resume,
                            executor_name=executor)
    with store:
        return RunHandle(store.run_dir, loaded.protocol.name, store.counts())


def report(run_dir: str | Path, *, grading: str | None = None) -> dict[str, Any]:
    """The report payload of a run directory (JSON-ready; what `reqbench report --json` prints)."""
    from reqbench.report import report_payload

    return report_payload(run_dir, grading=grading)
