"""How `--help` looks: paragraphs reflowed to the terminal, and conventional usage lines.

typer labels every value with its Python type (``--agent <str>``, ``--condition <list[str]>``, a suite
argument as ``{suite}``); `conventional_metavars` gives every argument and value-taking option of the
command tree an upper-case placeholder named after it instead (``reqbench run [OPTIONS] SUITE``,
``--agent AGENT``), as command lines are usually documented. A hidden argument gets none, so it stays
out of the usage line. `HELP_SETTINGS` lets click wrap help text at the terminal's width (up to 120
columns) rather than at its default of 80; docstrings' own line breaks are not kept, only paragraphs.
"""

from __future__ import annotations

from typing import Any

HELP_SETTINGS: dict[str, Any] = {"max_content_width": 120, "help_option_names": ["--help", "-h"]}


def conventional_metavars(command: Any) -> Any:
    """Set the placeholder of every parameter of `command` and its subcommands (in place); returns it."""
    for param in getattr(command, "params", []):
        if param.metavar is not None or getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        name = (param.name or "value").upper()
        if param.param_type_name == "argument":
            _plain_argument(param, name)
        else:
            param.metavar = name
    for sub in getattr(command, "commands", {}).values():
        conventional_metavars(sub)
    return command


def _plain_argument(param: Any, name: str) -> None:
    """Usage ``SUITE`` (required), ``[SUITE]`` (optional), ``CONFIGS...`` (many); nothing for a hidden
    argument; no type label beside it in the Arguments section."""
    many = "..." if param.nargs != 1 else ""
    usage = "" if getattr(param, "hidden", False) else (name if param.required else f"[{name}]") + many
    param.metavar = name
    param._usage_display_name = lambda: usage  # typer's own spelling wraps it in {} and adds the type
    param.display_type_rich = lambda ctx: None
