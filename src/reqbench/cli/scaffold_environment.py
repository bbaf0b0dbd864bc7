"""``--environment FILE|SPEC`` of the scaffold commands: the block written into the task file they create.

Parsed and validated exactly as ``reqbench run --environment`` (`core.execute.environments.parse_option`)
before anything is fetched or written, so a bad block exits 2 naming the option and leaves nothing behind.
The scaffolded file lives in a new folder, so a block naming files (a requirements file, a lock, a
project, a package.json, an image archive or Dockerfile) is refused: its paths would point elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from reqbench.core.errors import InputError

OPTION_HELP = ("The task environment to write into the scaffolded task file: a YAML/JSON file with an "
               "environment block, or the block as inline JSON (validated as `reqbench run --environment`; "
               "docs/environments.md).")


def environment_option() -> Any:
    """The typer option every scaffold command declares."""
    return typer.Option(None, "--environment", help=OPTION_HELP)


def scaffold_environment(value: str | None) -> dict[str, Any] | None:
    """The validated block as JSON (None without the option); `InputError` naming the option otherwise."""
    if value is None:
        return None
    from reqbench.core.environments import load_environment
    from reqbench.core.execute.environments import OPTION, parse_option

    block, base = parse_option(value)
    named = load_environment(block, origin=OPTION, base_dir=Path(base)).named_files()
    if named:
        item, rel = named[0]
        raise InputError(f"names the file {rel!r}; a scaffolded task lives in a new folder, so give a block "
                         "that names no files and add such files next to the task file by hand",
                         file=value if not value.strip().startswith("{") else None,
                         item=f"{OPTION} environment.{item}")
    return block
