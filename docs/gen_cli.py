"""The CLI reference page (``docs/reference/cli.md``), generated from the typer app `reqbench.cli.main.app`.

Every command and group is walked with click introspection: its help text, then its arguments and options
(flags, type, default, help). Only reqbench's own command groups are documented: a group an installed
plugin adds (a ``reqbench.commands`` entry point outside reqbench) is left out, so the page is the same on
every machine. Hidden commands and options are left out too. `make docs` runs it
(``python docs/gen_cli.py docs/reference/cli.md``); a test checks every command and option is on the page.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HEADER = """# CLI reference

Generated from the `reqbench` command by `docs/gen_cli.py` (`make docs`); `reqbench COMMAND --help` prints
the same. Exit codes: 0 success, 1 a negative finding, 2 bad input (one sentence naming file, item and
rule), 3 a run that measured nothing ([Commands](../commands.md#exit-codes)).
"""


def root_command() -> Any:
    import typer

    from reqbench.cli.main import app

    return typer.main.get_command(app)


def own_group(name: str) -> bool:
    """A top-level command of reqbench itself (not one an installed plugin registered)."""
    from reqbench.core import registry

    if name not in registry.names("commands"):
        return True  # a command of the main app (run, report, ...), not a registered group
    return registry.entry_value("commands", name).startswith("reqbench.")


def walk(command: Any, path: tuple[str, ...] = ("reqbench",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(command path, command) of `command` and every visible subcommand, depth first, in the app's order."""
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        if getattr(sub, "hidden", False) or (len(path) == 1 and not own_group(name)):
            continue
        yield from walk(sub, (*path, name))


def visible_params(command: Any) -> list[Any]:
    return [p for p in command.params if not getattr(p, "hidden", False)]


def _clean(text: str | None) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip() != "\b"]
    return "\n".join(lines).strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _default(param: Any) -> str:
    default = getattr(param, "default", None)
    if getattr(param, "required", False):
        return "required"
    if default in (None, (), [], "") or callable(default):
        return ""
    if isinstance(default, bool):
        return "on" if default else "off"
    return f"`{default}`"


def _names(param: Any) -> str:
    if param.param_type_name == "argument":
        return f"`{param.name.upper()}`"
    return ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])


def command_section(path: tuple[str, ...], command: Any) -> str:
    depth = min(len(path) + 1, 4)
    title = " ".join(path)
    parts = [f"{'#' * depth} `{title}`", ""]
    help_text = _clean(command.help) or _clean(getattr(command, "short_help", None))
    if help_text:
        parts += [help_text, ""]
    subs = [n for n in (getattr(command, "commands", None) or {})
            if not getattr(command.commands[n], "hidden", False) and (len(path) > 1 or own_group(n))]
    if subs:
        parts += ["Commands: " + ", ".join(f"`{n}`" for n in subs), ""]
    params = visible_params(command)
    if params:
        parts += ["| argument / option | type | default | description |", "|---|---|---|---|"]
        ctx = command.context_class(command, info_name=path[-1])
        for p in params:
            kind = "flag" if getattr(p, "is_flag", False) else p.display_type(ctx).strip("<>")
            help_text = _clean(getattr(p, "help", ""))
            parts.append(f"| {_names(p)} | {_cell(kind)} | {_default(p)} | {_cell(help_text)} |")
        parts.append("")
    return "\n".join(parts)


def cli_reference() -> str:
    return HEADER + "\n" + "\n".join(command_section(path, cmd) for path, cmd in walk(root_command()))


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "docs/reference/cli.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(cli_reference(), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
