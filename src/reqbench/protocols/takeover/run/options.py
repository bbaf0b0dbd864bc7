"""Takeover's own ``--agent-opt takeover.KEY=VALUE`` settings (`TakeoverOptions`), split from the agent's.

* ``takeover.instructions=FILE`` — the Phase-A instructions of the C1/C2 packages (diagnostic and
  two-phase rows) are read from FILE instead of reqbench's own text, e.g. the original release text
  (DESIGN §9: it is an input, never shipped). The file must exist and be UTF-8.

Every other ``takeover.*`` key is an error naming it (`core.execute.settings`); the rest goes to the agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from reqbench.core.errors import InputError
from reqbench.core.execute.settings import ProtocolOptions, split_settings
from reqbench.core.execute.types import RunOptions

PREFIX = "takeover."


class TakeoverOptions(ProtocolOptions):
    """ReqMemBench's run settings (§3.1, D.1); every other ``--agent-opt`` goes to the agent."""

    instructions: str | None = Field(None, description="A UTF-8 file whose text replaces reqbench's own "
                                     "Phase-A instructions (e.g. the original release text).")


@dataclass(frozen=True)
class TakeoverSettings:
    instructions: str | None = None
    """Phase-A instructions text replacing the package's (None: the built package's own)."""


def split_options(options: RunOptions) -> tuple[TakeoverSettings, dict[str, Any]]:
    """``--agent-opt`` -> (takeover settings, the agent's own options); `InputError` naming the key for an
    unknown key or an instructions file that is missing or not UTF-8."""
    settings, rest = split_settings(options.agent_options, "takeover", TakeoverOptions)
    path = settings.instructions
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
