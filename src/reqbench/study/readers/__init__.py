"""Per-protocol readers of stored row results: the only place the study package reads a protocol's result
fields, one small module per protocol, so a change of a protocol's result model changes one module here.

A reader module offers:

* ``PAIRED`` -- a `PairedOutcome`: the per-row measurement compared between configurations, whether it is
  binary, and its unit of inference (the paper's: family, target, instance, case);
* ``paired_value(row, outcome) -> float | None`` -- that measurement for one stored row, computed with the
  protocol's own metric function over the single row (None when the row is not scored: attrition);
* whatever its `study.tables` module needs (rows relabelled by configuration, protocol summaries).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from reqbench.core.execute.types import Row, RowOutcome

MODULES = {name: f"reqbench.study.readers.{name}" for name in ("specpath", "takeover", "journey", "pace")}


@dataclass(frozen=True)
class PairedOutcome:
    """What paired comparisons compare for a protocol."""

    name: str
    """The measurement, as tables name it (e.g. ``final-contract success``)."""
    binary: bool
    """0/1 outcomes (exact McNemar when each unit holds one) rather than a score (the sign-flip test)."""
    clusters: str
    """The unit of inference, plural (the tasks: families, targets, instances, cases): paired tests compare
    unit means and the paired bootstrap resamples units (`study.paired_stats`)."""
    unit: str
    """The same unit, singular (family, target, instance, case)."""


def reader(protocol: str) -> ModuleType | None:
    """The reader module of `protocol` (None for a protocol reqbench has no reader for)."""
    module = MODULES.get(protocol)
    return None if module is None else importlib.import_module(module)


def relabelled(config: str, outcomes: list[tuple[Row, RowOutcome]]) -> list[tuple[Row, RowOutcome]]:
    """A configuration's rows with the configuration's name as their agent, so a protocol's own summaries,
    which group by agent (journey ``AGENT/CONDITION``, PACE systems), group by configuration."""
    return [(Row(row.task_id, row.condition, config, row.repeat), outcome) for row, outcome in outcomes]
