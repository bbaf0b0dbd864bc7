"""`reqbench import harbor` and `reqbench export harbor`: Harbor task folders in and out (`docs/harbor.md`)."""

from __future__ import annotations

from pathlib import Path

import typer

from reqbench.cli.consoles import console

import_app = typer.Typer(help="Bring tasks of another harness in as a reqbench suite.", no_args_is_help=True)


@import_app.command("harbor")
def import_harbor(
    tasks: list[Path] = typer.Argument(..., help="Harbor task folders (each with task.toml)."),
    out: Path = typer.Option(..., "--out", help="The new suite folder (must not exist)."),
    host_toolchain: bool = typer.Option(False, "--host-toolchain", help="Do not map environment/: run every "
                                        "task on the host's tools."),
) -> None:
    """Import Harbor tasks (single- and multi-step) as a runnable harbor suite; prints one line per field
    that has no meaning here.

    Example: reqbench import harbor tasks/hello tasks/steps-demo --out suites/harbor-demo
    """
    from reqbench.protocols.harbor.importer import import_tasks

    for line in import_tasks(tasks, out, host_toolchain=host_toolchain):
        console.echo(f"note: {line}")
    console.echo(f"wrote {out} ({len(tasks)} tasks); run it with: reqbench run {out} --agent reference")


def export_harbor(suite: Path, out: Path) -> None:
    """`reqbench export harbor SUITE --out DIR`: a suite as Harbor tasks, hidden tests under tests/, the
    reference under solution/ (journey instances and SpecPath families so far)."""
    from reqbench.cli.protocol_lookup import suite_spec
    from reqbench.interop.harbor_export import export_suite

    for line in export_suite(suite_spec(suite), out):
        console.echo(line)
