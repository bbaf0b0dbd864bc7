"""The `reqbench` command. Groups live in their own modules; this file only wires them and maps errors.

Everything printed goes through `cli.consoles` (control characters shown, never obeyed; no markup read).

Exit codes (DESIGN §7): 0 success, 1 a negative finding (including a failed `reqbench demo`), 2 bad input
(one sentence naming file, item, rule), 3 a run that measured nothing (`reqbench run`: every row invalid).
"""

from __future__ import annotations

import sqlite3
import sys
import traceback

import typer

from reqbench import __version__
from reqbench.cli.consoles import console, err_console, marked, route_python_messages
from reqbench.cli.help_format import HELP_SETTINGS, conventional_metavars
from reqbench.core.errors import InputError

app = typer.Typer(
    name="reqbench",
    help="Evaluate AI coding agents on evolving requirements.\n\n"
    "Example: reqbench demo --out runs/demo",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: paragraphs reflowed, no boxes (`cli.help_format`)
    context_settings=HELP_SETTINGS,
)

def _version(value: bool) -> None:
    if value:
        console.echo(f"reqbench {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Evaluate AI coding agents on evolving requirements (takeover, specpath, journey, pace)."""


def _register() -> None:
    """Top-level commands, then one group per registered command group (``reqbench.commands`` entry points:
    reqbench's four protocols and any installed plugin's). A module that fails to import is an error."""
    from reqbench.cli import agents_cmd, generic
    from reqbench.core import registry

    generic.register(app)
    agents_cmd.register(app)
    for name, group in registry.loadable("commands").items():
        app.add_typer(group, name=name)


_register()


def main() -> None:
    route_python_messages()
    try:
        conventional_metavars(typer.main.get_command(app))(prog_name="reqbench")
    except InputError as exc:
        err_console.print(marked("error:", "red", exc))
        sys.exit(2)
    except sqlite3.DatabaseError as exc:  # a corrupt or truncated run.sqlite is bad input, not a crash
        err_console.print(marked("error:", "red", f"the run database (run.sqlite) is corrupt or truncated ({exc}); "
                                  "`reqbench doctor RUN_DIR` checks a run directory"))
        sys.exit(2)
    except Exception:  # a bug: its traceback, where a message may quote a run's text, printed visibly
        err_console.echo(traceback.format_exc(), end="")
        sys.exit(1)


if __name__ == "__main__":
    main()
