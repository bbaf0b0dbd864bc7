"""The `reqbench` command. Groups live in their own modules; this file only wires them and maps errors.

Start-up is part of every command, so only what the command line names is imported: ``reqbench
--version`` imports neither typer nor any command (nor rich: it prints through `cli.screen`), and ``reqbench
run ...`` registers (and imports) only `run` (`COMMANDS`); a command line naming no known command,
``--help`` or none at all registers every command so the help lists them and a typo gets typer's "No such
command". `app` (for tests and the docs generator) is the app with every command.

Everything printed goes through `cli.consoles` or, where rich is not needed, `cli.screen` (control
characters shown, never obeyed; no markup read). rich is imported only when something is printed with it:
``--version`` and a ``run --quiet`` up to its headline run without it.

Garbage collection: the objects start-up makes (modules, classes, the parsed command line) live until
the process ends, so collections while importing find nothing to free (15-20 ms of a run's start-up), and
the interpreter's teardown collections walk every one of them again (60-150 ms after a run's last line). `main`
therefore defers collection until the command is wired, then freezes what exists (later collections skip
it) and freezes again before teardown. A cycle frozen there is never collected, so its finalizers do not
run at exit: reqbench closes its files and databases itself (`with` blocks), never through collection.

BLAS threads: the harness's own numpy does small vector work (the report's bootstrap resampling), where
OpenBLAS's worker threads only spin -- about 0.1 s of CPU at numpy's import, taken from the rows of a run
on a busy machine. `main` sets ``OPENBLAS_NUM_THREADS=1`` before anything imports numpy (a value the user
set is kept). Agents and checks never see it: their environments are allow-lists
(`core.sandbox.launch.ENV_ALLOW`, `core.agents.preset_base.PASS_ENV`).

Exit codes (DESIGN §7): 0 success, 1 a negative finding (including a failed `reqbench demo`), 2 bad input
(one sentence naming file, item, rule), 3 a run that measured nothing (`reqbench run`: every row invalid).
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any, NoReturn

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("reqbench.cli.generic", "demo"),
    "validate": ("reqbench.cli.generic", "validate"),
    "run": ("reqbench.cli.generic_run", "run"),
    "report": ("reqbench.cli.generic_report", "report"),
    "regrade": ("reqbench.cli.regrade", "regrade"),
    "export": ("reqbench.cli.generic_report", "export"),
    "view": ("reqbench.cli.generic_report", "view"),
    "stats": ("reqbench.cli.stats_cmd", "stats"),
    "schema": ("reqbench.cli.generic", "schema"),
    "doctor": ("reqbench.cli.doctor", "doctor"),
}
"""Top-level command -> (module, function), in the order `reqbench --help` lists them."""


def make_app(command: str | None = None) -> Any:
    """The typer app with `command` registered (a top-level command, ``agents`` or a registered command
    group), or with every command when `command` is None or names none of them."""
    import typer

    from reqbench.cli.help_format import HELP_SETTINGS
    from reqbench.cli.screen import write
    from reqbench.core import registry

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
            write(sys.stdout, f"reqbench {version()}")
            raise typer.Exit(0)

    @app.callback()
    def _root(
        version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                     help="Print the version and exit."),
    ) -> None:
        """Evaluate AI coding agents on evolving requirements (takeover, specpath, journey, pace)."""

    if command in COMMANDS:
        _register_command(app, command)
    elif command == "agents":
        from reqbench.cli import agents_cmd

        agents_cmd.register(app)
    elif command is not None and command in registry.names("commands"):
        app.add_typer(registry.load("commands", command), name=command)
    else:
        _register_all(app)
    return app


def _register_all(app: Any) -> None:
    """Top-level commands, then one group per registered command group (``reqbench.commands`` entry points:
    reqbench's four protocols and any installed plugin's). A module that fails to import is an error."""
    from reqbench.cli import agents_cmd
    from reqbench.core import registry

    for command in COMMANDS:
        _register_command(app, command)
    agents_cmd.register(app)
    listed = set(registry.listed("commands"))
    for name, group in registry.loadable("commands").items():
        app.add_typer(group, name=name, hidden=name not in listed)  # a test fixture's: runs, never listed


def _register_command(app: Any, command: str) -> None:
    import importlib

    module, name = COMMANDS[command]
    app.command(command)(getattr(importlib.import_module(module), name))


def version() -> str:
    from reqbench import __version__

    return str(__version__)


def __getattr__(name: str) -> Any:
    """`app`: the app with every command, made on first use."""
    if name == "app":
        app = make_app()
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The process's entry point (``reqbench``, ``python -m reqbench``); the process ends after it."""
    gc.disable()  # until the command is wired (module docstring)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy's first import (module docstring)
    try:
        _main()
    finally:
        gc.freeze()  # the teardown's collections would walk every object start-up made (module docstring)
        gc.enable()


def _main() -> None:
    from reqbench.cli.screen import route_python_messages, write

    args = sys.argv[1:]
    if args[:1] == ["--version"]:  # eager, like typer's: nothing after it is read
        write(sys.stdout, f"reqbench {version()}")
        return
    from reqbench.core.code_cache import install

    install()  # before the first class of a command is made (`core.code_cache`)
    import sqlite3
    import traceback

    import typer

    from reqbench.cli.help_format import conventional_metavars
    from reqbench.core.errors import InputError

    route_python_messages()
    try:
        app = make_app(args[0] if args and not args[0].startswith("-") else None)
        gc.freeze()
        gc.enable()
        conventional_metavars(typer.main.get_command(app))(prog_name="reqbench")
    except InputError as exc:
        _error(exc)
    except sqlite3.DatabaseError as exc:  # a corrupt or truncated run.sqlite is bad input, not a crash
        _error(f"the run database (run.sqlite) is corrupt or truncated ({exc}); `reqbench doctor RUN_DIR` checks a "
               "run directory")
    except Exception:  # a bug: its traceback, where a message may quote a run's text, printed visibly
        write(sys.stderr, traceback.format_exc(), end="")
        sys.exit(1)


def _error(message: object) -> NoReturn:
    """``error: MESSAGE`` on stderr and exit 2 (bad input)."""
    from reqbench.cli.consoles import err_console, marked

    err_console.print(marked("error:", "red", message))
    sys.exit(2)


if __name__ == "__main__":
    main()
