"""Top-level commands shared by every protocol: demo, validate, run, report, view, schema, agents."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

console = Console()


def demo(out: Path = typer.Option(Path("runs/demo"), "--out", help="Run directory for the demo.")) -> None:
    """Run the main job on the embedded default: every bundled suite, offline.

    Example: reqbench demo --out runs/demo
    """
    from reqbench.protocols.base import available_protocols

    if not available_protocols():
        console.print("no bundled suites yet")
        return


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
