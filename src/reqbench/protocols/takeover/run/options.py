"""Takeover's own ``--agent-opt takeover.KEY=VALUE`` settings (`TakeoverOptions`), split from the agent's.

* ``takeover.phase_a_texts=DIR`` — the Phase-A instructions and response schema of the C1/C2 packages
  (diagnostic and two-phase rows; oracle-pre reads the schema) are read from DIR, a folder laid out as a
  released package's ``public/`` folder (``instructions.md``, ``response.schema.json``): the release's own texts,
  read as input files (DESIGN §9), reach the agent byte for byte and its responses are validated against that
  schema (`phase_a_texts`).
* ``takeover.instructions=FILE`` — only the instructions from FILE (the schema stays reqbench's).

Without either, the agent reads reqbench's paraphrase, which the run's provenance names as a difference
(`PhaseATexts.statement`). Both files are validated before anything is created: one `InputError` naming the
file and the rule. Every other ``takeover.*`` key is an error naming it (`core.execute.settings`); the rest
goes to the agent.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from reqbench.core.errors import InputError
from reqbench.core.execute.settings import ProtocolOptions, split_settings
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.takeover.phase_a.texts import (
    PhaseATexts,
    cached_texts_from_folder,
    packaged_texts,
    read_instructions,
)

PREFIX = "takeover."


class TakeoverOptions(ProtocolOptions):
    """ReqMemBench's run settings (§3.1, D.1); every other ``--agent-opt`` goes to the agent."""

    phase_a_texts: str | None = Field(None, description="A folder holding instructions.md and response.schema.json "
                                      "as a released Phase-A package's public/ folder does (e.g. the ReqMemBench "
                                      "release's): both replace reqbench's own paraphrased texts.")
    instructions: str | None = Field(None, description="A UTF-8 file whose text replaces reqbench's own "
                                     "Phase-A instructions (the response schema stays reqbench's).")


@dataclass(frozen=True)
class TakeoverSettings:
    texts: PhaseATexts = field(default_factory=packaged_texts)
    """The Phase-A instructions and response schema the agent reads (reqbench's paraphrase unless given)."""


def split_options(options: RunOptions) -> tuple[TakeoverSettings, dict[str, Any]]:
    """``--agent-opt`` -> (takeover settings, the agent's own options); `InputError` naming the key for an
    unknown key, both text options at once, or a texts folder or instructions file that is missing or malformed."""
    settings, rest = split_settings(options.agent_options, "takeover", TakeoverOptions)
    if settings.phase_a_texts is not None and settings.instructions is not None:
        raise InputError(f"give {PREFIX}phase_a_texts (both texts) or {PREFIX}instructions (the instructions "
                         "only), not both", item=f"--agent-opt {PREFIX}instructions")
    if settings.phase_a_texts is not None:
        folder = Path(str(settings.phase_a_texts)).expanduser()
        return TakeoverSettings(cached_texts_from_folder(folder, f"--agent-opt {PREFIX}phase_a_texts")), rest
    if settings.instructions is not None:
        path = Path(str(settings.instructions)).expanduser()
        text = read_instructions(path, f"--agent-opt {PREFIX}instructions")
        return TakeoverSettings(dataclasses.replace(packaged_texts(), instructions=text,
                                                    instructions_origin=str(path))), rest
    return TakeoverSettings(), rest
