"""`reqbench journey ...`: SWE-Journey commands (calibrate an instance, list personas, run one session)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import typer

from reqbench.cli.consoles import console
from reqbench.cli.protocol_lookup import suite_spec

app = typer.Typer(help="SWE-Journey: long-horizon, multi-turn sessions with simulated users.",
                  no_args_is_help=True)


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
        typer.echo(json.dumps(payload, indent=2))
    else:
        for rep in reports:
            mark = "[green]ok[/green]" if rep.ok else "[red]FAILED[/red]"
            console.print(f"{rep.instance}: {mark} ({len(rep.subtasks)} subtasks, whole-task F2P "
                          f"{rep.whole_f2p}, P2P {rep.whole_p2p}, {rep.test_runs} test runs)",
                          highlight=False)
            for f in rep.findings:
                console.print(f"  {f.sentence()}", highlight=False, soft_wrap=True)
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
        typer.echo(json.dumps(items, indent=2))
        return
    for p in items:
        console.print(f"{p['name']}: expertise={p['expertise']} detail={p['detail_preference']} "
                      f"control={p['control_style']} goals={p['goal_stability']} "
                      f"verification={p['verification_style']}", highlight=False)


@app.command("session")
def session_cmd(
    instance: Path = typer.Argument(..., help="Instance directory.", callback=suite_spec),
    persona: str = typer.Option("software-architect", "--persona",
                                help="Preset name, persona YAML file, or 'single-shot'."),
    agent: str = typer.Option("reference", "--agent", help="Assistant: reference, null, llm, a preset..."),
    simulator: str = typer.Option("deterministic", "--simulator", help="deterministic or llm."),
    simulator_model: str = typer.Option("", "--simulator-model", help="Model of the llm simulator."),
    seed: int = typer.Option(0, "--seed", help="Simulator seed."),
    max_turns: int = typer.Option(40, "--max-turns", help="Shared turn limit."),
    transcript: Path | None = typer.Option(None, "--transcript", help="Write the full transcript JSON here."),
    as_json: bool = typer.Option(False, "--json", help="Print the session metrics as JSON."),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help="Run a real assistant even "
                                           "where bubblewrap cannot isolate it."),
) -> None:
    """Run one session outside a run directory and print its metrics (same isolation as `reqbench run`).

    Example: reqbench journey session demo:journey/tasklet --persona non-coder --agent reference
    """
    from reqbench.core.execute.suite import RowContext
    from reqbench.core.execute.types import Row, RunOptions
    from reqbench.core.hashing import write_json
    from reqbench.core.sandbox import isolation_gate

    isolation_gate(agent, unsafe_no_sandbox=unsafe_no_sandbox)
    from reqbench.protocols.journey.suite import PROTOCOL

    options = RunOptions(agent=agent, seed=seed, unsafe_no_sandbox=unsafe_no_sandbox, agent_options={
        "journey.simulator": simulator, "journey.simulator_model": simulator_model,
        "journey.max_turns": max_turns})
    from reqbench.protocols.journey.models import load_instance

    inst = load_instance(instance)
    with tempfile.TemporaryDirectory(prefix="journey-session-") as tmp:
        out = PROTOCOL.load(inst.root).run_row(Row(inst.id, persona, agent, 0), RowContext(options, Path(tmp)))
    if transcript is not None:
        write_json(transcript, json.loads(out.artifacts.get("transcript.json", b"{}")))
    result = {k: v for k, v in out.result.items() if k != "trace"}
    if as_json:
        typer.echo(json.dumps({"status": str(out.status), "detail": out.detail, **result}, indent=2))
    else:
        console.print(f"status={out.status} {out.detail}".strip(), highlight=False)
        for key in ("end_reason", "turns", "proc_f2p", "final_f2p", "final_p2p", "final_confidence",
                    "cost_usd"):
            console.print(f"  {key}: {result.get(key)}", highlight=False)


@app.command("table")
def table_cmd(run_dir: Path = typer.Argument(..., help="A run directory of a journey suite.")) -> None:
    """Print the paper-style tables (main results and capabilities) of a journey run as markdown, and
    with several assistants: Spearman rho between conditions' rankings and the paired single-shot vs
    interactive comparison.

    Example: reqbench journey table runs/demo/journey-journey-reference
    """
    from reqbench.core.errors import InputError
    from reqbench.core.store import RunStore
    from reqbench.protocols.journey.comparisons import comparison_tables
    from reqbench.protocols.journey.report import markdown_table, summarize_rows

    with RunStore.open(run_dir, read_only=True) as store:
        if store.meta.protocol != "journey":
            raise InputError(f"not a journey run (protocol {store.meta.protocol})", file=str(run_dir))
        summary = summarize_rows(store.outcomes())
        typer.echo(markdown_table(summary) + comparison_tables(summary), nl=False)
