"""``replay:FILE`` for PACE: recorded checklists in the one replay format (`reqbench.core.judges.replay`).

One JSONL line per judged point request: ``{"request_key": "<PointRequest.key()>", "answer": {checklist}}``
where the key is ``pace/<case id>/<point id>/round-<n>`` (round 1 is the answer after the targeted
expansion). A missing record is a pending judgment (the point stays Unresolved), never a silent zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.judges.base import JudgePending
from reqbench.core.judges.replay import ReplayRecords
from reqbench.protocols.pace.l2 import PointRequest


class ReplayPointJudge:
    def __init__(self, path: Path) -> None:
        self.replay = ReplayRecords(path)
        self.path = self.replay.path
        self.judge_id = f"replay:{self.path.name}"

    def judge_point(self, request: PointRequest) -> str | dict[str, Any]:
        answer = self.replay.answer(request.key())
        if answer is None:
            raise JudgePending(f"{request.case_id}/{request.point_id}: no recorded judgment for "
                               f"{request.key()} in {self.path}")
        if not isinstance(answer, str | dict):
            raise JudgePending(f"{request.key()}: the recorded answer is not a checklist object")
        return answer
