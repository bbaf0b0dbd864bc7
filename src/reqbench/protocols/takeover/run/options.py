"""Takeover's own ``--agent-opt takeover.KEY=VALUE`` settings, split from the agent's options.

* ``takeover.instructions=FILE`` — the Phase-A instructions of the C1/C2 packages (diagnostic and
  two-phase rows) are read from FILE instead of reqbench's own text, e.g. the original release text
  (DESIGN §9: it is an input, never shipped). The file must exist and be UTF-8.

Every other ``takeover.*`` key is an error naming it; the rest goes to the agent unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions

PREFIX = "takeover."
KNOWN = ("instructions",)


@dataclass(frozen=True)
class TakeoverSettings:
    instructions: str | None = None
    """Phase-A instructions text replacing the package's (None: the built package's own)."""


def split_options(options: RunOptions) -> tuple[TakeoverSettings, dict[str, Any]]:
    """``--agent-opt`` -> (takeover settings, the agent's own options); `InputError` naming the key for an
    unknown key or an instructions file that is missing or not UTF-8."""
    mine = {k.removeprefix(PREFIX): v for k, v in options.agent_options.items() if k.startswith(PREFIX)}
    rest = {k: v for k, v in options.agent_options.items() if not k.startswith(PREFIX)}
    for key in mine:
        if key not in KNOWN:
            raise InputError(f"unknown option; known: {', '.join(PREFIX + k for k in KNOWN)}",
                             item=f"--agent-opt {PREFIX}{key}")
    path = mine.get("instructions")
    return TakeoverSettings(_read_instructions(path) if path is not None else None), rest


def _read_instructions(value: Any) -> str:
    item = f"--agent-opt {PREFIX}instructions"
    path = Path(str(value)).expanduser()
    if not path.is_file():
        raise InputError("instructions file does not exist", file=str(path), item=item)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"instructions file is not UTF-8 (byte {exc.start})", file=str(path), item=item) from None
    except OSError as exc:
        raise InputError(f"cannot read the instructions file ({exc.strerror})", file=str(path), item=item) from None
    if not text.strip():
        raise InputError("instructions file is empty", file=str(path), item=item)
    return text
