"""What the viewer's study page shows, as plain typed values (`StudyView`): tables of `Metric` cells and each
configuration's rows with one number per row. The study package builds it (`reqbench.study.view`) from
a study directory; the viewer renders it without knowing the study's protocol."""

from __future__ import annotations

from dataclasses import dataclass, field

from reqbench.core.summary import SummaryTable

PairKey = tuple[str, str, int]
"""(task, condition, repeat): rows of two configurations pair on it."""


@dataclass(frozen=True)
class StudyRow:
    """One row of one configuration: its key in the configuration's run, status and measurement."""

    pair: PairKey
    row_key: str
    status: str
    value: float | None
    """The study's per-row measurement (None: not scored)."""


@dataclass(frozen=True)
class StudyView:
    """A study as the viewer shows it."""

    title: str
    measure: str
    """What the per-row values and the heatmap measure (e.g. a score, a success indicator)."""
    runs: dict[str, str]
    """Configuration -> the name of its run in the viewer (its run directory relative to the study)."""
    leaderboard: SummaryTable
    """Configuration -> its headline metrics (`Metric` with interval and n)."""
    heatmap: SummaryTable
    """Configuration -> condition -> mean measurement (`Metric` with n)."""
    rows: dict[str, list[StudyRow]]
    pairs: SummaryTable | None = None
    """The matrix of paired differences (row minus column), when the study has one."""
    notes: dict[str, str] = field(default_factory=dict)
    """Estimator notes by table title."""
    tables: list[tuple[SummaryTable, str]] = field(default_factory=list)
    """Every table of ``reqbench study report`` with its estimator."""
    plots: list[tuple[str, bytes]] = field(default_factory=list)
    """The study's plots, drawn: (title, PNG) of each headline metric by configuration and the forest plot of
    the paired differences."""
