"""The `reqbench` command. Groups live in their own modules; this file only wires them and maps errors.

Exit codes (DESIGN §7): 0 success, 1 a negative finding (including a failed `reqbench demo`), 2 bad input
(one sentence naming file, item, rule), 3 a run that measured nothing (`reqbench run`: every row invalid).
"""

from __future__ import annotations

import importlib
import sqlite3
import sys

import typer
from rich.console import Console

from reqbench import __version__
from reqbench.core.errors import InputError

err_console = Console(stderr=True)

app = typer.Typer(
    name="reqbench",
    help="Evaluate AI coding agents on evolving requirements.\n\n"
    "Example: reqbench demo --out runs/demo",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# (module, group name or None for top-level commands registered by the module itself)
_GROUPS: list[tuple[str, str | None]] = [
    ("reqbench.cli.generic", None),
    ("reqbench.cli.takeover", "takeover"),
    ("reqbench.cli.specpath", "specpath"),
    ("reqbench.cli.journey", "journey"),
    ("reqbench.cli.pace", "pace"),
    ("reqbench.cli.agents_cmd", None),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"reqbench {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Evaluate AI coding agents on evolving requirements (takeover, specpath, journey, pace)."""


def _register() -> None:
    for module_name, group in _GROUPS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        if group is None:
            module.register(app)
        else:
            app.add_typer(module.app, name=group)


_register()


def main() -> None:
    try:
        app(prog_name="reqbench")
    except InputError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except sqlite3.DatabaseError as exc:  # a corrupt or truncated run.sqlite is bad input, not a crash
        err_console.print(f"[red]error:[/red] the run database (run.sqlite) is corrupt or truncated ({exc}); "
                          "`reqbench doctor RUN_DIR` checks a run directory", highlight=False, soft_wrap=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
