"""`replay:FILE` — recorded checklists, keyed by case and point (and round for expansions).

File format (JSON)::

    {"CASE_ID": {"POINT_ID": {checklist} | [{round 0 checklist}, {round 1 checklist}]}}

A missing entry is a pending judgment (the point stays Unresolved), never a silent zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json
from reqbench.core.judges.base import JudgePending
from reqbench.protocols.pace.l2 import PointRequest


class ReplayJudge:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.data: dict[str, Any] = read_json(self.path)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read replay judgments ({type(exc).__name__})", file=str(path)) from exc
        if not isinstance(self.data, dict):
            raise InputError("replay file must map case id -> point id -> checklist", file=str(path))
        self.judge_id = f"replay:{self.path.name}"

    def judge_point(self, request: PointRequest) -> dict[str, Any]:
        entry = self.data.get(request.case_id, {}).get(request.point_id)
        if entry is None:
            raise JudgePending(f"{request.case_id}/{request.point_id}: no recorded judgment in {self.path}")
        if isinstance(entry, list):
            if request.round >= len(entry):
                raise JudgePending(f"{request.case_id}/{request.point_id}: no recorded round {request.round}")
            entry = entry[request.round]
        return entry
