"""The papers' comparison tables, one module per protocol (`specpath`, `takeover`, `journey`, `pace`), each
built from the protocol's own metric functions over every configuration's rows; a protocol without a
module here (a plugin's) gets the generic tables only."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reqbench.study.collect import StudyData
    from reqbench.study.table import StudyTable

MODULES = {name: f"reqbench.study.tables.{name}" for name in ("specpath", "takeover", "journey", "pace")}


def protocol_tables(data: StudyData) -> list[StudyTable]:
    """The paper-shaped tables of the study's protocol ([] when reqbench has none for it)."""
    module = MODULES.get(data.protocol)
    if module is None or not data.configs:
        return []
    tables: list[StudyTable] = importlib.import_module(module).tables(data)
    return tables
