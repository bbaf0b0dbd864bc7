"""What a protocol offers the generic commands (`validate`, `run`, `report`, `demo`).

Each protocol package has a `suite.py` defining ``PROTOCOL``, an instance of a `SuiteProtocol` subclass;
its ``load(path)`` gives a `Suite` (loaded and validated once) whose ``summarize`` returns a typed `Summary`.
The interface itself -- every hook with its default -- lives in `reqbench.core.execute.suite` (the runner
calls it) and is re-exported here. `detect_protocol` picks the protocol of a suite directory from its marker
file; `dataset_stats` asks it for the suite's dataset-statistics tables (its ``dataset_stats(path)`` hook,
`reqbench stats`).

The summary types (`Summary`, `SummaryTable`, ...) are re-exported on first use: a run builds its summary after
its last row, so `reqbench.core.summary` is not on the way to the first row.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import Outcomes, RowContext, Suite, SuiteProtocol, checked_protocol, load_protocol
from reqbench.core.lazy import lazy_attributes

if TYPE_CHECKING:
    from reqbench.core.summary import Cell, Metric, Plot, Summary, SummaryTable, bar_from_table

__all__ = ["Cell", "Metric", "Outcomes", "Plot", "RowContext", "Suite", "SuiteProtocol", "Summary", "SummaryTable",
           "available_protocols", "bar_from_table", "dataset_stats", "detect_protocol", "load_protocol",
           "marker_protocol"]


__getattr__ = lazy_attributes(__name__, {name: "reqbench.core.summary" for name in (
    "Cell", "Metric", "Plot", "Summary", "SummaryTable", "bar_from_table")})


def marker_protocol(file: Path) -> str | None:
    """The ``protocol:`` named by a suite marker file (suite.yaml, case.yaml, ...), or None when the file
    is missing, unreadable, not YAML or names no protocol. Detection never raises."""
    import yaml

    try:
        data = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    value = data.get("protocol") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def available_protocols() -> list[SuiteProtocol]:
    """Every registered protocol (reqbench's and any installed plugin's), in name order. A plugin entry that
    is not a `SuiteProtocol` is skipped with a warning naming it, as a plugin that fails to import is."""
    found: list[SuiteProtocol] = []
    for name, value in registry.loadable("protocols").items():
        try:
            found.append(checked_protocol(value, name))
        except InputError as exc:
            print(f"warning: plugin protocol {name!r} is skipped: {exc}", file=sys.stderr)
    return found


def detect_protocol(path: Path) -> SuiteProtocol:
    """The protocol whose ``detect`` accepts `path` (`InputError` when none does)."""
    path = Path(path)
    if not path.exists():
        raise InputError("no such suite directory", file=str(path))
    for proto in available_protocols():
        if proto.detect(path):
            return proto
    raise InputError("not a suite of any known protocol (no suite.yaml / family.yaml / instance.yaml / "
                     "case.yaml with a known protocol)", file=str(path))


def dataset_stats(path: Path) -> tuple[SuiteProtocol, Summary]:
    """The protocol of the suite at `path` and its dataset-statistics tables (``dataset_stats(path)``, an
    optional hook: `InputError` for a protocol without it)."""
    protocol = detect_protocol(path)
    summary = protocol.dataset_stats(Path(path))
    if summary is None:
        raise InputError(f"the {protocol.name} protocol offers no dataset statistics", file=str(path))
    return protocol, summary
