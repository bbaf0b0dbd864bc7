"""`StudyTable`: one table of a study report and the estimator of its intervals, named once under it -- the
protocols' tables (`core.protocol_study.StudyTable`) with the report's cell data for rendering."""

from __future__ import annotations

from reqbench.core.protocol_study import StudyTable as ProtocolTable
from reqbench.report.tables import TableData, table_data


class StudyTable(ProtocolTable):
    """A table of the study report (cells: `Metric` with interval and n, or plain values) and its estimator."""

    @classmethod
    def of(cls, found: ProtocolTable) -> StudyTable:
        """A protocol's study table as one of the report's."""
        return cls(found.table, found.estimator)

    def data(self) -> TableData:
        return table_data(self.table)
