"""Where a run's model prices came from, recorded in its provenance when the run starts (``provenance.prices``)
so every report names the table its costs were computed with, not just "the built-in table".

Prices are layered (`core.llm.pricing`): the built-in table, under the file ``REQBENCH_PRICES`` names (read
by every model client of the process), under the ``llm`` agent's own ``prices`` option (a file), under the
run's own prices (``--prices FILE``, ``--price MODEL=IN/OUT``, a study file's ``prices``). `price_sources`
records each layer that was in force, a file with its absolute path and sha256, so a reader can tell which
prices a number used and whether the file has changed since.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from reqbench.core.execute.types import RunOptions

PRICES_ENV = "REQBENCH_PRICES"
"""The environment variable naming a price file over the built-in table (`core.llm.pricing.load_prices`)."""


def _file(path: str) -> dict[str, Any]:
    """A price file as provenance: its absolute path and sha256 (None when it cannot be read)."""
    file = Path(path).expanduser().absolute()
    try:
        digest: str | None = hashlib.sha256(file.read_bytes()).hexdigest()
    except OSError:
        digest = None
    return {"path": str(file), "sha256": digest}


def price_sources(options: RunOptions) -> dict[str, Any]:
    """The run's price layers, lowest first: ``{"table": "built-in", "table_file"?, "agent_file"?,
    "run_prices_from"?}``."""
    out: dict[str, Any] = {"table": "built-in"}
    env_file = os.environ.get(PRICES_ENV)
    if env_file:
        out["table_file"] = {**_file(env_file), "from": PRICES_ENV}
    agent_file = options.agent_options.get("prices")
    if isinstance(agent_file, str) and agent_file:
        out["agent_file"] = {**_file(agent_file), "from": "agent option prices"}
    if options.prices:
        out["run_prices_from"] = options.prices_from or "--price"
    return out
