"""The toy protocol in a study, through reqbench's study hook (`SuiteProtocol.study`) alone: a scored row's
toy value is the paired value, on tasks, and the toy's own table is the mean toy value by configuration x
condition -- what a plugin protocol adds to `reqbench study report` without an edit to reqbench."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.protocol_study import PairedOutcome, ProtocolStudy, StudyRows, StudyTable
from reqbench.core.summary import Cell, Metric, SummaryTable

TABLE = "toy value by configuration x condition"
ESTIMATOR = "mean toy value over scored rows; interval: min and max; n = scored rows"


class ToyValue(BaseModel):
    """The part of a toy row's result the study reads (from the stored result, a mapping or a model)."""

    model_config = ConfigDict(extra="ignore")
    value: int


class ToyStudy(ProtocolStudy):
    paired = PairedOutcome("toy value", binary=False, clusters="tasks", unit="task")

    def paired_value(self, row: Row, outcome: RowOutcome) -> float | None:
        if outcome.status is not RowStatus.SCORED:
            return None
        return float(ToyValue.model_validate(outcome.result, from_attributes=True).value)

    def tables(self, rows: StudyRows) -> list[StudyTable]:
        cells: dict[str, dict[str, Cell]] = {}
        for name, config in rows.configs.items():
            found: dict[str, list[float]] = {}
            for row, outcome in config.outcomes:
                value = self.paired_value(row, outcome)
                if value is not None:
                    found.setdefault(row.condition, []).append(value)
            for condition, values in sorted(found.items()):
                cells[f"{name} / {condition}"] = {
                    "mean toy value": Metric(sum(values) / len(values), (min(values), max(values)), len(values))}
        return [StudyTable(SummaryTable(TABLE, cells), ESTIMATOR)]


STUDY = ToyStudy()
