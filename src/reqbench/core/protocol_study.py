"""What a protocol offers studies (`SuiteProtocol.study`): the one value paired comparisons compare per row
and its unit of inference, the protocol's paper-shaped comparison tables over every configuration's rows,
the judge's labels for the label-stability audit, and, where the protocol has them, frozen simulated users.

A protocol keeps all of this in ``protocols/<name>/study.py`` as a `ProtocolStudy` subclass, computed with its
own metric functions over stored rows; the study package (`reqbench.study`) calls these hooks and names no
protocol, so a plugin protocol gets paired comparisons and its own study tables by overriding them. The
defaults are the "nothing of its own" answers: no paired value (no paired comparisons, no repetition
tables), no tables, no judge labels, no frozen users.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reqbench.core.execute.types import Outcomes as Outcomes  # re-exported for the study hooks
from reqbench.core.execute.types import Row, RowOutcome

if TYPE_CHECKING:
    from reqbench.core.execute.suite import Suite
    from reqbench.core.summary import Cell, SummaryTable



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


@dataclass(frozen=True)
class StudyTable:
    """A table of the study report (cells: `Metric` with interval and n, or plain values) and its estimator,
    named once under it."""

    table: SummaryTable
    estimator: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**self.table.to_json(), "estimator": self.estimator}


@dataclass(frozen=True)
class StudyConfig:
    """One configuration of a study as its protocol's tables see it: its name, settings and stored rows."""

    name: str
    agent: str
    """The configuration's agent spec (``NAME[:ARG]``)."""
    model: str
    """Its model deployment as the study labels it (the ``model`` option, else the agent's default)."""
    outcomes: Outcomes
    """Its selected attempts under the grading the report reads (what ``reqbench report`` reads)."""


@dataclass(frozen=True)
class StudyRows:
    """A study read back, as a protocol's `ProtocolStudy.tables` gets it."""

    suite: Suite
    """The study's suite, loaded once."""
    configs: dict[str, StudyConfig]
    """Every configuration that has a run directory, in the study's order."""
    pilot: str | None = None
    """The configuration whose simulated users the others replayed (``freeze_user_from``), if any."""


def relabelled(config: str, outcomes: Outcomes) -> Outcomes:
    """A configuration's rows with the configuration's name as their agent, so a protocol's own summaries,
    which group by agent, group by configuration."""
    return [(Row(row.task_id, row.condition, config, row.repeat), outcome) for row, outcome in outcomes]


class ProtocolStudy:
    """A protocol's study hooks, each with its default (see the module docstring)."""

    paired: PairedOutcome | None = None
    """The measurement paired comparisons, the leaderboard and the repetition tables compare; None: none."""
    judge_labelled: bool = False
    """Whether `judge_labels` gives the judge's labels of a row (the label-stability audit)."""
    label_order: tuple[str, ...] | None = None
    """The judge's labels in order (linear-weighted kappa), or None for nominal labels."""
    frozen_user_option: str | None = None
    """The agent option through which a study hands its frozen-user file to a run (``freeze_user_from``);
    None: the protocol has no simulated users to freeze."""
    frozen_user_artifact: str = ""
    """The artifact of a scored row that holds its simulated user's turns."""

    def paired_value(self, row: Row, outcome: RowOutcome, /) -> float | None:
        """The `paired` measurement of one stored row, computed with the protocol's own metric over that
        single row; None when the row does not count (not scored: attrition)."""
        return None

    def tables(self, rows: StudyRows, /) -> list[StudyTable]:
        """The protocol's paper-shaped comparison tables over every configuration's rows."""
        return []

    def judge_labels(self, outcome: RowOutcome, /) -> dict[str, str]:
        """Item -> the judge's label of one stored row (when `judge_labelled`)."""
        return {}

    def record_columns(self, outcomes: Outcomes, /) -> dict[str, Cell]:
        """Extra columns of one record's row in the scores-by-record table (PACE Table 11's deliveries)."""
        return {}

    def frozen_user_document(self, sessions: list[tuple[Row, bytes]], pilot: str) -> dict[str, Any]:
        """The frozen-user file of a pilot's scored sessions, each given as its row and the content of its
        `frozen_user_artifact` (only called when `frozen_user_option` is set)."""
        raise NotImplementedError(f"{type(self).__name__} has no frozen simulated users")
