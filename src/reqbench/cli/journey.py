"""`reqbench journey ...`: SWE-Journey commands (calibrate an instance, list personas, run one session,
scaffold an instance from real releases)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.text import Text

from reqbench.cli.consoles import console, styled
from reqbench.cli.protocol_lookup import suite_spec
from reqbench.cli.scaffold_environment import environment_option, scaffold_environment
from reqbench.core import tempdirs

app = typer.Typer(help="SWE-Journey: long-horizon, multi-turn sessions with simulated users; weak-to-strong "
                  "instance synthesis. Intervals: none (the paper reports point estimates); rank "
                  "associations are Spearman rho with a t-approximate two-sided p.", no_args_is_help=True)


@app.command("calibrate")
def calibrate_cmd(
    instance: Path = typer.Argument(..., help="Instance directory (instance.yaml) or a suite directory.",
                                    callback=suite_spec),
    as_json: bool = typer.Option(False, "--json", help="Print the calibration report as JSON."),
) -> None:
    """Apply the reference patches in order and check every F2P/P2P rule (exit 1 on a finding).

    Example: reqbench journey calibrate demo:journey/tasklet --json
    """
    from reqbench.protocols.journey.calibrate import calibrate
    from reqbench.protocols.journey.models import load_suite

    _, instances = load_suite(instance)
    reports = [calibrate(inst) for inst in instances]
    if as_json:
        payload = reports[0].to_dict() if len(reports) == 1 else [r.to_dict() for r in reports]
        console.echo(json.dumps(payload, indent=2))
    else:
        for rep in reports:
            mark = styled("ok", "green") if rep.ok else styled("FAILED", "red")
            console.print(Text.assemble(f"{rep.instance}: ", mark, f" ({len(rep.subtasks)} subtasks, whole-task "
                                        f"F2P {rep.whole_f2p}, P2P {rep.whole_p2p}, {rep.test_runs} test runs)"))
            for f in rep.findings:
                console.print(f"  {f.sentence()}")
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


@app.command("personas")
def personas_cmd(as_json: bool = typer.Option(False, "--json", help="Print the presets as JSON.")) -> None:
    """List the four bundled personas and their five dimensions.

    Example: reqbench journey personas --json
    """
    from reqbench.protocols.journey.personas import presets

    items = [p.model_dump(mode="json") for p in presets()]
    if as_json:
        console.echo(json.dumps(items, indent=2))
        return
    for p in items:
        console.print(f"{p['name']}: expertise={p['expertise']} detail={p['detail_preference']} "
                      f"control={p['control_style']} goals={p['goal_stability']} "
                      f"verification={p['verification_style']}")


@app.command("session")
def session_cmd(
    instance: Path = typer.Argument(..., help="Instance directory.", callback=suite_spec),
    persona: str = typer.Option("software-architect", "--persona",
                                help="Preset name, persona YAML file, or 'single-shot'."),
    agent: str = typer.Option("reference", "--agent", help="Assistant: reference, null, llm, a preset..."),
    simulator: str = typer.Option("deterministic", "--simulator", help="deterministic or llm."),
    simulator_model: str = typer.Option("", "--simulator-model", help="Model of the llm simulator."),
    seed: int = typer.Option(0, "--seed", help="Simulator seed."),
    max_turns: int = typer.Option(40, "--max-turns", min=1, help="Shared turn limit."),
    transcript: Path | None = typer.Option(None, "--transcript", help="Write the full transcript JSON here."),
    as_json: bool = typer.Option(False, "--json", help="Print the session metrics as JSON."),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help="Run a real assistant even "
                                           "where bubblewrap cannot isolate it."),
) -> None:
    """Run one session outside a run directory and print its metrics (same isolation as `reqbench run`).

    Example: reqbench journey session demo:journey/tasklet --persona non-coder --agent reference
    """
    from reqbench.core.execute.credentials import refuse_inline_credentials
    from reqbench.core.execute.suite import RowContext
    from reqbench.core.execute.types import Row, RunOptions
    from reqbench.core.hashing import write_json
    from reqbench.core.sandbox import isolation_gate

    refuse_inline_credentials(agent, {})  # the spec is printed back in errors: a key in it stops here
    isolation_gate(agent, unsafe_no_sandbox=unsafe_no_sandbox)
    from reqbench.protocols.journey.suite import PROTOCOL

    options = RunOptions(agent=agent, seed=seed, unsafe_no_sandbox=unsafe_no_sandbox, agent_options={
        "journey.simulator": simulator, "journey.simulator_model": simulator_model,
        "journey.max_turns": max_turns})
    from reqbench.core.execute.environments import attempt_environment, prepare
    from reqbench.protocols.journey.models import load_instance

    inst = load_instance(instance)
    loaded, row = PROTOCOL.load(inst.root), Row(inst.id, persona, agent, 0)
    environments = prepare(loaded, options)  # the instance's task environment, built (or found) first
    with tempdirs.folder("journey-session") as tmp, \
            attempt_environment(environments, row, Path(tmp)) as environment:
        out = loaded.run_row(row, RowContext(options, Path(tmp), row, environment))
    if transcript is not None:
        write_json(transcript, json.loads(out.artifacts.get("transcript.json", b"{}")))
    result = {k: v for k, v in out.result.stored().items() if k != "trace"}
    if as_json:
        console.echo(json.dumps({"status": str(out.status), "detail": out.detail, **result}, indent=2))
    else:
        console.print(f"status={out.status} {out.detail}".strip())
        for key in ("end_reason", "turns", "proc_f2p", "final_f2p", "final_p2p", "final_confidence",
                    "cost_usd"):
            console.print(f"  {key}: {result.get(key)}")


@app.command("synthesize")
def synthesize_cmd(
    seed: Path = typer.Argument(..., help="Seed directory (seed.yaml, repo/, hidden/)."),
    out: Path = typer.Option(..., "--out", help="New instance directory to write (must not exist)."),
    planner_model: str = typer.Option(..., "--planner-model", help="The strong model: plans the stages."),
    worker_model: str = typer.Option(..., "--worker-model", help="The weak model: implements each subtask."),
    rubric_model: str = typer.Option("", "--rubric-model", help="Reviewer of the rubric gate "
                                     "(default: the planner model)."),
    stages: int = typer.Option(3, "--stages", min=1, help="Progressively harder plan stages (paper: 3)."),
    subtasks: int = typer.Option(3, "--subtasks-per-stage", min=1, help="Subtasks per stage (paper: "
                                 "594 subtasks over 30 instances, ~6.6 per stage)."),
    angles: int = typer.Option(2, "--angles-per-stage", min=1, help="Task angles sampled per stage."),
    max_retries: int = typer.Option(2, "--max-retries", min=0, help="Weak-model retries per subtask."),
    max_replans: int = typer.Option(1, "--max-replans", min=0, help="Returns to planning per subtask."),
    seed_value: int = typer.Option(0, "--seed", help="Angle-sampling seed."),
    instance_id: str = typer.Option("", "--id", help="Instance id (default: SEED-journey)."),
) -> None:
    """Synthesize a long-horizon instance from a seed: strong-model plan (task dimensions, angles),
    weak-model subtasks gated by execution and rubric checks; the output is marked unreviewed.

    Example: reqbench journey synthesize seeds/tasklet --out instances/tasklet-2 --planner-model big
    --worker-model small
    """
    from reqbench.protocols.journey.synthesis import Options, Synthesizer, load_seed

    opts = Options(planner_model=planner_model, worker_model=worker_model, rubric_model=rubric_model,
                   stages=stages, subtasks_per_stage=subtasks, angles_per_stage=angles,
                   max_retries=max_retries, max_replans=max_replans, seed=seed_value, instance_id=instance_id)
    path = Synthesizer(load_seed(seed), opts).run(out)
    console.echo(f"{path} (unreviewed; see synthesis.json)")


@app.command("scaffold")
def scaffold_cmd(
    releases: list[str] = typer.Argument(..., help="Two or more releases of one project, oldest first: "
                                         "NAME==VERSION (PyPI sdist; NAME==V1,V2,V3 for several), or local "
                                         "trees git:PATH@TAG, dir:PATH, archive:PATH."),
    out: Path = typer.Option(..., "--out", help="New instance directory to write (must not exist)."),
    instance_id: str = typer.Option("", "--id", help="Instance id (default: the project name)."),
    tests: str = typer.Option("", "--tests", help="Test folder of the final release (default: the first "
                              "of tests, test, testing)."),
    paths: str = typer.Option("", "--paths", help="Comma-separated globs of the library files whose change "
                              "is each reference patch (default: the top-level packages and modules, or "
                              "src/PKG/* for a src/ layout)."),
    pythonpath: str = typer.Option("", "--pythonpath", help="Comma-separated import roots of the tree "
                                   "under test (default: src for a src/ layout, else .)."),
    pytest_args: str = typer.Option("", "--pytest-args", help="Extra pytest arguments of the test command, "
                                    "e.g. '-k \"not slow_test\"'."),
    timeout: float = typer.Option(300.0, "--timeout", min=1, max=604800,  # a week: keeps inf out
                                  help="Seconds per test run."),
    runs: int = typer.Option(2, "--runs", min=1, help="Test runs per release; a test whose result differs "
                             "between runs is flaky and left out of every subtask."),
    environment: str | None = environment_option(),
) -> None:
    """Build a journey instance from a project's real release history: the final release's tests run on
    every release (sandboxed, as the verifier runs them); each step whose results differ becomes a subtask
    (F2P: fails before the step, passes at it and after; P2P: passes on every release); steps no test tells
    apart are folded into the next. Writes instance.yaml (PyPI: pinned sdist hashes and pypi-diff:
    reference patches; local trees: repo/, hidden/, patches/) and scaffold.json. Replace the TODO requests
    with the release notes in a user's words, then run `reqbench journey calibrate`.

    Example: reqbench journey scaffold cachetools==5.5.0,5.5.1,5.5.2 --out suites/mine/cachetools
    """
    from reqbench.protocols.journey.scaffold import Options, expand, resolve
    from reqbench.protocols.journey.scaffold_write import write_instance

    block = scaffold_environment(environment)
    opts = Options(tests=tests, paths=[g.strip() for g in paths.split(",") if g.strip()],
                   pythonpath=[p.strip() for p in pythonpath.split(",") if p.strip()],
                   pytest_args=pytest_args, timeout_seconds=timeout, instance_id=instance_id, runs=runs)
    chain = [resolve(arg) for arg in expand(releases)]
    sc = write_instance(chain, opts, out, progress=lambda line: console.print(line), environment=block)
    folded = sum(len(s.folded) for s in sc.plan.steps)
    console.print(f"{out}: {len(sc.plan.steps)} subtasks ({folded} releases folded), "
                  f"F2P {sum(len(s.f2p) for s in sc.plan.steps)}, P2P {len(sc.plan.p2p)}, "
                  f"{len(sc.plan.unstable)} unstable and {len(sc.flaky)} flaky nodes left out")
    for k, step in enumerate(sc.plan.steps, 1):
        console.print(f"  T{k}: {chain[step.start].label} -> {chain[step.end].label} F2P {len(step.f2p)}"
                      + (f" (folded {', '.join(chain[i].label for i in step.folded)})" if step.folded else ""))


@app.command("select-seeds")
def select_seeds_cmd(
    seeds: list[Path] = typer.Argument(..., help="Candidate seed directories."),
    count: int = typer.Option(..., "--count", min=1, help="How many seeds to select."),
) -> None:
    """Choose seeds by greedy set cover over their labels, rare labels first, at most three per repository
    (SWE-Journey A.2). Prints the chosen seed directories.

    Example: reqbench journey select-seeds seeds/* --count 30
    """
    from reqbench.protocols.journey.synthesis import load_seed
    from reqbench.protocols.journey.synthesis.coverage import select_seeds

    loaded = {str(p): load_seed(p) for p in seeds}
    pool = [(k, s.spec.repository or s.spec.id, s.spec.labels) for k, s in loaded.items()]
    for key in select_seeds(pool, count):
        console.echo(key)


@app.command("table")
def table_cmd(run_dir: Path = typer.Argument(..., help="A run directory of a journey suite.")) -> None:
    """Print the paper-style tables (main results and capabilities) of a journey run as markdown, and
    with several assistants: Spearman rho between conditions' rankings and the paired single-shot vs
    interactive comparison.

    Example: reqbench journey table runs/demo/journey-reference
    """
    from reqbench.core.errors import InputError
    from reqbench.core.store import RunStore
    from reqbench.protocols.journey.comparisons import comparison_tables
    from reqbench.protocols.journey.report import markdown_table, summarize_rows

    with RunStore.open(run_dir, read_only=True) as store:
        if store.meta.protocol != "journey":
            raise InputError(f"not a journey run (protocol {store.meta.protocol})", file=str(run_dir))
        summary = summarize_rows(store.outcomes())
        console.echo(markdown_table(summary) + comparison_tables(summary), end="")
