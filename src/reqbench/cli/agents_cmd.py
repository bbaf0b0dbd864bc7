"""`reqbench agents [--json]`: every agent in the registry, what it is, and for CLI presets the exact
command line it runs (both stages for Claude Code and Codex), the pinned version and whether it is
installed; `reqbench agents install NAME[@VERSION]` installs a preset's tool into the per-version cache
(`core.agents.versions`), never into the user's environment."""

from __future__ import annotations

import json
import shutil
from typing import Any

import typer
from rich.table import Table

from reqbench.cli.consoles import console, styled
from reqbench.core import registry
from reqbench.core.agents.versions import PACKAGES, cached_binary, install, split_spec


def describe_agents() -> list[dict[str, Any]]:
    """One record per registered agent: name, factory, description, preset command lines, installation.

    An installed plugin whose agent fails to import is left out with a warning (`registry.loadable`);
    one of reqbench's own failing to import is a bug and raises."""
    from reqbench.core.agents.presets import PRESETS

    out: list[dict[str, Any]] = []
    listed = set(registry.listed("agents"))  # a test fixture's agents run, but are not listed
    for name, factory in registry.loadable("agents").items():
        if name not in listed:
            continue
        doc = (factory.__doc__ or "").strip()
        entry: dict[str, Any] = {"name": name, "factory": registry.entry_value("agents", name),
                                 "description": doc.splitlines()[0] if doc else "", "commands": {}}
        if name in PRESETS:
            stages = ("diagnostic", "coding") if PRESETS[name].staged else ("coding",)
            entry["commands"] = {stage: factory(stage=stage, binary=PRESETS[name].binary).command_line()
                                 for stage in stages}
        entry.update(installation(name))
        out.append(entry)
    return out


def installation(name: str) -> dict[str, Any]:
    """Pinned version and where the tool is installed: the cache (that version), else PATH, else nowhere."""
    if name not in PACKAGES:
        return {"pinned_version": None, "installed": None}
    pkg = PACKAGES[name]
    cached = cached_binary(name)
    if cached is not None:
        return {"pinned_version": pkg.pinned, "installed": f"cache: {cached}"}
    on_path = shutil.which(pkg.binary)
    return {"pinned_version": pkg.pinned, "installed": f"PATH (unpinned): {on_path}" if on_path else "no"}


def register(app: typer.Typer) -> None:
    group = typer.Typer(no_args_is_help=False, invoke_without_command=True)
    app.add_typer(group, name="agents")

    @group.callback()
    def agents(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """List the agents reqbench can run, with the exact command each CLI preset runs, its pinned
        version and whether it is installed.

        Example: reqbench agents --json
        """
        if ctx.invoked_subcommand is not None:
            return
        rows = describe_agents()
        if as_json:
            console.echo(json.dumps(rows, indent=2))
            return
        table = Table("agent", "description", "pinned")
        table.add_column("installed", overflow="fold")  # a path: folded, never cut
        for row in rows:
            table.add_row(row["name"], row["description"], row["pinned_version"] or "", row["installed"] or "")
        console.print(table)  # laid out to the terminal's width
        presets = [row for row in rows if row["commands"]]
        if presets:
            console.rule("what each CLI preset runs")
        for row in presets:  # one command per line, never broken: the terminal folds it, a copy stays whole
            for stage, cmd in row["commands"].items():
                label = f"{row['name']} ({stage})" if len(row["commands"]) > 1 else row["name"]
                console.print(styled(label, "bold"))
                console.print(f"  {cmd}")

    @group.command("install")
    def install_cmd(spec: str = typer.Argument(..., help="NAME or NAME@VERSION (default: the pinned one)."),
                    as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Install a CLI preset's tool into reqbench's per-version cache (npm or a virtualenv).

        Example: reqbench agents install claude-code@2.1.332
        """
        name, version = split_spec(spec)
        binary, seconds = install(name, version)
        record = {"agent": name, "version": version or PACKAGES[name].pinned, "binary": str(binary),
                  "seconds": round(seconds, 1)}
        console.echo(json.dumps(record) if as_json else
                     f"{name} {record['version']}: {binary} ({seconds:.1f}s)")
