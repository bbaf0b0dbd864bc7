"""`reqbench takeover validate | replay | build | import`: the deterministic construction commands.

Thin: parse options, call `reqbench.protocols.takeover`, print. Bad input raises `InputError`
(exit 2 via cli.main); `validate` prints every problem and exits 2 when there is any.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from reqbench.cli.consoles import console, err_console
from reqbench.cli.protocol_lookup import suite_spec

# The protocol modules are imported inside the commands so `reqbench --help` stays fast.


def validate_cmd(
    project: Path = typer.Argument(..., help="Project folder (or original release layout).", callback=suite_spec),
    as_json: bool = typer.Option(False, "--json", help="Print {'valid': bool, 'problems': [...]}."),
) -> None:
    """Check a takeover project against every validation rule; list all problems.

    Example: reqbench takeover validate demo:takeover/project
    """
    from reqbench.protocols.takeover.annotation.loading import validate_project

    problems = validate_project(project)
    if as_json:
        console.echo(json.dumps({"valid": not problems, "problems": problems}, ensure_ascii=False, indent=2))
    elif problems:
        for p in problems:
            err_console.echo(p)
        err_console.echo(f"{len(problems)} problem(s) in {project}")
    else:
        console.echo(f"{project}: valid")
    if problems:
        raise typer.Exit(2)


def replay_cmd(
    project: Path = typer.Argument(..., help="Project folder (or original release layout).", callback=suite_spec),
    out: Path | None = typer.Option(None, "--out", help="Write the state graph here instead of stdout."),
) -> None:
    """Replay every requirement's events into its state graph (requirement_state_graph.json).

    Example: reqbench takeover replay PROJECT --out requirement_state_graph.json
    """
    from reqbench.core.hashing import atomic_write_text, pretty_json
    from reqbench.protocols.takeover.annotation.loading import load_project
    from reqbench.protocols.takeover.annotation.replay import replay

    text = pretty_json(replay(load_project(project)).to_json())
    if out is None:
        console.echo(text, end="")
    else:
        atomic_write_text(out, text)


def build_cmd(
    project: Path = typer.Argument(..., help="Project folder (or original release layout).", callback=suite_spec),
    out: Path = typer.Option(..., "--out", help="Output directory (built atomically)."),
    input_release: str | None = typer.Option(
        None, "--input-release", help="Release name (default: project id + content hash)."
    ),
    instructions: Path | None = typer.Option(
        None, "--instructions", help="Phase-A instructions text to ship instead of reqbench's paraphrase "
        "(e.g. the release's instructions.md)."
    ),
    response_schema: Path | None = typer.Option(
        None, "--response-schema", help="Response JSON Schema to ship instead of reqbench's own "
        "(e.g. the release's rq_agent_response.schema.json)."
    ),
    code_environment: Path | None = typer.Option(
        None, "--code-environment", help="RQ4 code environments (a targets/ folder of T###_before_<id>/); "
        "default: PROJECT/code_environment/targets or PROJECT/Code Environment/<id>/targets when present."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary."),
) -> None:
    """Build the state graph, gold states, RQ1-RQ3 instances, Phase-A packages and, for targets with a
    code environment, RQ4 instances and the agent-judge registry.

    Example: reqbench takeover build PROJECT --out build/ --input-release my-release-v1
    """
    from reqbench.protocols.takeover.annotation.loading import load_project
    from reqbench.protocols.takeover.release.build import build_release
    from reqbench.protocols.takeover.rq4_delivery.environments import default_environment_root

    loaded = load_project(project)
    if code_environment is None and project.is_dir():
        code_environment = default_environment_root(project, loaded.project_id)
    result = build_release(
        loaded,
        out,
        input_release=input_release,
        instructions=instructions,
        response_schema=response_schema,
        code_environments=code_environment,
    )
    if as_json:
        console.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        counts = ", ".join(f"{rq} {n}" for rq, n in result.instance_counts.items())
        console.echo(
            f"built {out}: release {result.input_release}; instances {counts}; "
            f"{len(result.packages)} Phase-A packages\nPhase-A texts: {result.phase_a_texts}"
        )


def import_cmd(
    release: Path = typer.Argument(..., help="Release folder: outputs_new/ with one project, plus "
                                   "'Code Environment/<project id>/targets/'."),
    out: Path = typer.Option(..., "--out", help="New suite folder (written atomically; must not exist or be empty)."),
    validators: Path | None = typer.Option(
        None, "--validators", help="Per-target delivery checks the release does not ship: DIR/<T###>/hidden/ "
        "and reference.patch (+ negative*.patch); such targets deliver code from their pre_repo.zip."),
    target_command: str = typer.Option(
        "{pytest} -q {hidden}", "--target-command", help="Target gate command of imported delivery targets."),
    as_json: bool = typer.Option(False, "--json", help="Print the import report as JSON."),
) -> None:
    """Import a ReqMemBench release (project files and its code environments) as a takeover suite.

    Each environment's pre_repo.zip is checked for zip safety and against its manifest's archive_sha256 and
    repo_sha256 (a mismatch stops the import, nothing is written); criteria files that are missing,
    unreadable or not PROCEED_TO_VALIDATOR_AUTHORING are warnings, and the environment is kept.

    Example: reqbench takeover import RELEASE --out suites/my-release --validators validators/
    """
    from reqbench.protocols.takeover.release.importer import import_release

    result = import_release(release, out, validators=validators, target_command=target_command)
    for w in result.warnings:
        err_console.echo(f"warning: {w}")
    if as_json:
        console.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        console.echo(f"imported {out}: project {result.project_id}; {len(result.environments)} code "
                     f"environment(s), {len(result.delivery)} delivery target(s), {len(result.warnings)} "
                     "warning(s)")


def register(app: typer.Typer) -> None:
    """Add the construction commands to the `takeover` group."""
    app.command("validate")(validate_cmd)
    app.command("replay")(replay_cmd)
    app.command("build")(build_cmd)
    app.command("import")(import_cmd)
