"""Harbor in a study (`SuiteProtocol.study`, `core.protocol_study`): a scored row's reward (Harbor's metric:
the ``reward`` key, else the mean of the keys; 0 without rewards) as the paired value, on tasks -- not
binary, since a verifier may write any reward in [0, 1]; and one table: the mean reward over scored rows by
configuration x condition with the bootstrap interval of the run's own summary (`harbor.summary`)."""

from __future__ import annotations

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.protocol_study import PairedOutcome, ProtocolStudy, StudyRows, StudyTable
from reqbench.core.summary import Cell, SummaryTable
from reqbench.protocols.harbor.result import HarborResult
from reqbench.protocols.harbor.summary import ESTIMATOR, reward_metric

PAIRED = PairedOutcome("reward", binary=False, clusters="tasks", unit="task")


class HarborStudy(ProtocolStudy):
    """The reward on tasks and the mean reward by configuration x condition."""

    paired = PAIRED

    def paired_value(self, row: Row, outcome: RowOutcome) -> float | None:
        """The reward of a scored row; None for a row that is not scored (attrition)."""
        if outcome.status is not RowStatus.SCORED:
            return None
        return HarborResult.of(outcome.result).reward

    def tables(self, rows: StudyRows) -> list[StudyTable]:
        cells: dict[str, dict[str, Cell]] = {}
        for name, config in rows.configs.items():
            by_condition: dict[str, list[float]] = {}
            for row, outcome in config.outcomes:
                value = self.paired_value(row, outcome)
                if value is not None:
                    by_condition.setdefault(row.condition, []).append(value)
            for condition, values in by_condition.items():
                cells[f"{name} / {condition}"] = {"mean reward": reward_metric(values)}
        return [StudyTable(SummaryTable("mean reward by configuration x condition", cells), ESTIMATOR)] if cells else []


STUDY = HarborStudy()
