"""`reqbench agents [--json]`: every agent in the registry, what it is, and for CLI presets the exact
command line it runs (both stages for Claude Code and Codex)."""

from __future__ import annotations

import importlib
import json
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reqbench.core.agents.registry import AGENTS


def describe_agents() -> list[dict[str, Any]]:
    """One record per registered agent: name, description, availability, preset command lines."""
    from reqbench.core.agents.presets import PRESETS

    out: list[dict[str, Any]] = []
    for name, (module_name, factory_name) in sorted(AGENTS.items()):
        entry: dict[str, Any] = {"name": name, "factory": f"{module_name}:{factory_name}",
                                 "available": True, "description": "", "commands": {}}
        try:
            factory = getattr(importlib.import_module(module_name), factory_name)
        except (ModuleNotFoundError, AttributeError):
            entry.update(available=False, description="not available in this build")
            out.append(entry)
            continue
        entry["description"] = (factory.__doc__ or "").strip().splitlines()[0] if factory.__doc__ else ""
        if name in PRESETS:
            stages = ("diagnostic", "coding") if PRESETS[name].staged else ("coding",)
            entry["commands"] = {stage: factory(stage=stage).command_line() for stage in stages}
        out.append(entry)
    return out


def register(app: typer.Typer) -> None:
    @app.command("agents")
    def agents(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """List the agents reqbench can run, with the exact command each CLI preset runs.

        Example: reqbench agents --json
        """
        rows = describe_agents()
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        table = Table("agent", "description", "command", show_lines=True)
        for row in rows:
            commands = "\n".join(f"[{stage}] {cmd}" if len(row["commands"]) > 1 else cmd
                                 for stage, cmd in row["commands"].items())
            table.add_row(escape(row["name"]), escape(row["description"]), escape(commands))
        Console(width=200).print(table)
