"""How big a journey instance is, computed from its files: stages, subtasks, the F2P and P2P test nodes
of each subtask and of the whole task, and what each subtask's reference patch changes.

What `reqbench stats` (`journey.stats`) and `make demo-real` tabulate (SWE-Journey §3.4: "30 instances
and 594 subtasks, with 6,332 F2P and 4,166 P2P nodes"; "reference patches average 10.2 files and 768.3
changed lines"), so a suite's scale is stated from the artefacts, never by hand. A fetched reference
patch is downloaded (and cached) to be measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from reqbench.core.workspace.pypi_diff import touched
from reqbench.protocols.journey.models import Instance


@dataclass(frozen=True)
class SubtaskSize:
    subtask: str
    stage: str
    f2p: int
    p2p: int
    """Its full P2P list (`Instance.p2p_of`: common nodes, its own, and the F2P nodes it includes)."""
    files: int
    """Files its reference patch touches."""
    added: int
    removed: int

    @property
    def changed(self) -> int:
        return self.added + self.removed


@dataclass(frozen=True)
class InstanceSize:
    instance: str
    stages: int
    subtasks: tuple[SubtaskSize, ...]
    whole_f2p: int
    """Whole-task F2P nodes (A.4: every subtask's F2P node)."""
    whole_p2p: int
    """Whole-task P2P nodes (declared P2P nodes that are nobody's F2P)."""


def instance_size(instance: Instance) -> InstanceSize:
    subtasks = []
    for stage in instance.spec.stages:
        for sub in stage.subtasks:
            files, added, removed = touched(instance.patch_text(sub))
            subtasks.append(SubtaskSize(sub.id, stage.id, len(sub.f2p), len(instance.p2p_of(sub)),
                                        len(set(files)), added, removed))
    return InstanceSize(instance.id, len(instance.spec.stages), tuple(subtasks), len(instance.whole_f2p),
                        len(instance.whole_p2p))
