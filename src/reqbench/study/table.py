"""`StudyTable`: one table of a study report and the estimator of its intervals, named once under it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reqbench.core.summary import Table
from reqbench.report.tables import TableData, table_data


@dataclass(frozen=True)
class StudyTable:
    """A table of the study report (cells: `Metric` with interval and n, or plain values) and its estimator."""

    table: Table
    estimator: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**self.table.to_json(), "estimator": self.estimator}

    def data(self) -> TableData:
        return table_data(self.table)
