"""Harbor in a study (`protocols.harbor.study`): a scored row's reward is the paired value, on tasks; a row
that is not scored is attrition; the table is the mean reward by configuration x condition, with the run
summary's bootstrap interval and n."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.protocol_study import StudyConfig, StudyRows
from reqbench.core.stats.intervals import bootstrap_mean
from reqbench.protocols.harbor.suite import PROTOCOL, HarborSuite


def _row(task: str, reward: float | None, agent: str = "a") -> tuple[Row, RowOutcome]:
    if reward is None:
        return Row(task, "default", agent), RowOutcome(RowStatus.INVALID, detail="provider outage")
    return Row(task, "default", agent), RowOutcome(RowStatus.SCORED, result={"reward": reward})


def test_the_paired_value_is_a_scored_rows_reward_and_attrition_is_none() -> None:
    study = PROTOCOL.study()
    assert study.paired is not None and (study.paired.unit, study.paired.binary) == ("task", False)
    assert study.paired_value(*_row("t1", 0.25)) == 0.25
    assert study.paired_value(*_row("t1", None)) is None


def test_the_table_is_the_mean_reward_by_configuration_and_condition(tmp_path: Path) -> None:
    rows = StudyRows(HarborSuite(PROTOCOL, tmp_path, {}), {
        "one": StudyConfig("one", "reference", "reference", [_row("t1", 1.0), _row("t2", 0.5), _row("t3", None)]),
        "two": StudyConfig("two", "null", "null", [_row("t1", 0.0), _row("t2", 0.0)])})
    [table] = PROTOCOL.study().tables(rows)
    cells = {name: row["mean reward"] for name, row in table.table.rows.items()}
    assert list(cells) == ["one / default", "two / default"]
    interval = bootstrap_mean([1.0, 0.5])
    assert (cells["one / default"].value, cells["one / default"].ci, cells["one / default"].n) == (
        0.75, (interval.lo, interval.hi), 2)
    assert (cells["two / default"].value, cells["two / default"].n) == (0.0, 2)
    assert "bootstrap" in table.estimator
