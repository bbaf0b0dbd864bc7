"""The dataset-statistics tables of a journey suite (SWE-Journey §3.4), computed from its files.

`reqbench stats` prints them (`JourneyProtocol.dataset_stats`):

* **instances**: per instance its stages, subtasks, whole-task F2P and P2P nodes, and the files and
  lines its reference patches change (`sizes.instance_size`);
* **distributions**: subtasks and stages per instance, and per subtask its F2P and P2P test nodes and
  the changed files and lines of its reference patch, as count, min, median, max and mean.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.stats.distribution import spread
from reqbench.core.summary import Cell, Summary, SummaryTable
from reqbench.protocols.journey.models import load_suite
from reqbench.protocols.journey.sizes import InstanceSize, instance_size

INSTANCES, DISTRIBUTIONS = "instances (SWE-Journey §3.4)", "per instance and per subtask"
COLUMNS = ("count", "min", "median", "max", "mean")


def _instances(sizes: list[InstanceSize]) -> SummaryTable:
    return SummaryTable(INSTANCES, {s.instance: {
        "stages": s.stages, "subtasks": len(s.subtasks), "F2P nodes": s.whole_f2p, "P2P nodes": s.whole_p2p,
        "reference files": sum(t.files for t in s.subtasks),
        "changed lines": sum(t.changed for t in s.subtasks)} for s in sizes})


def _distributions(sizes: list[InstanceSize]) -> SummaryTable:
    subtasks = [t for s in sizes for t in s.subtasks]
    return SummaryTable(DISTRIBUTIONS, {
        "subtasks per instance": spread([len(s.subtasks) for s in sizes], COLUMNS),
        "stages per instance": spread([s.stages for s in sizes], COLUMNS),
        "F2P tests per subtask": spread([t.f2p for t in subtasks], COLUMNS),
        "P2P tests per subtask": spread([t.p2p for t in subtasks], COLUMNS),
        "reference files per subtask": spread([t.files for t in subtasks], COLUMNS),
        "changed lines per subtask": spread([t.changed for t in subtasks], COLUMNS),
    })


def dataset_stats(path: Path) -> Summary:
    """The tables of the suite (or single instance) at `path`."""
    _suite, instances = load_suite(Path(path))
    sizes = [instance_size(i) for i in instances]
    overview: dict[str, Cell] = {
        "instances": len(sizes), "stages": sum(s.stages for s in sizes),
        "subtasks": sum(len(s.subtasks) for s in sizes), "F2P nodes": sum(s.whole_f2p for s in sizes),
        "P2P nodes": sum(s.whole_p2p for s in sizes)}
    return Summary(overview=overview, tables=[_instances(sizes), _distributions(sizes)])
