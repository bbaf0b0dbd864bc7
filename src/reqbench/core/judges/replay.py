"""The one replay format of judge answers, and the `replay:FILE` judge that answers `JudgeRequest`s from it.

FILE is JSONL. Each line is one call record keyed by the request's key::

    {"request_key": "<key>", "labels": {"<candidate>": "<LABEL>", ...}, "judge_id": "...", ...}
    {"request_key": "<key>", "answer": <any JSON>, "judge_id": "...", ...}

``labels`` answers a label contract (`JudgeRequest.key()`, the request's content address); ``answer``
carries a whole structured answer for judges that return one (PACE checklists, keyed by
`PointRequest.key()`). Other fields are kept but ignored. The call records written by
`reqbench takeover score --record FILE` have exactly this shape, so a run scored once can be re-scored
offline. Lines with ``"accepted": false`` (rejected attempts) are skipped. When a key appears on
several accepted lines, the **last** one wins, so adjudicated answers can be appended after the
original ones. A request whose key is absent stays *pending* (`JudgePending`); recorded labels that
break the request's contract (missing, duplicate, extra candidates, unknown labels) are rejected
(`JudgeRejected`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.judges.base import (
    JudgePending,
    JudgeRejected,
    JudgeRequest,
    JudgeResponse,
    validate_labels,
)


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Keep the raw (key, value) pairs: a candidate labelled twice in one object must stay visible so
    # that `validate_labels` rejects it (a plain dict would silently keep the last label).
    out: dict[str, Any] = dict(pairs)
    out["__pairs__"] = pairs
    return out


class ReplayRecords:
    """The accepted call records of one replay file, by request key (last accepted line wins)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise InputError("replay judge file does not exist", file=str(self.path))
        self.records: dict[str, dict[str, Any]] = {}
        for lineno, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line, object_pairs_hook=_pairs_hook)
            except json.JSONDecodeError as exc:
                raise InputError(f"line {lineno} is not JSON ({exc.msg})", file=str(self.path)) from exc
            key = rec.get("request_key")
            if not isinstance(key, str) or not (isinstance(rec.get("labels"), dict) or "answer" in rec):
                raise InputError(f"line {lineno} needs a string 'request_key' and a 'labels' object or an "
                                 "'answer'", file=str(self.path))
            if rec.get("accepted") is False:
                continue
            self.records[key] = rec

    def __len__(self) -> int:
        return len(self.records)

    def answer(self, key: str) -> Any | None:
        """The structured ``answer`` recorded for `key` (None when there is none)."""
        rec = self.records.get(key)
        return None if rec is None or "answer" not in rec else _plain(rec["answer"])


def _plain(value: Any) -> Any:
    """`value` without the ``__pairs__`` bookkeeping `_pairs_hook` adds to every object."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "__pairs__"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class ReplayJudge:
    """Labels looked up by request key in a replay file (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.replay = ReplayRecords(path)
        self.path = self.replay.path
        self.judge_id = f"replay:{self.path.name}"
        self._records = self.replay.records

    def __len__(self) -> int:
        return len(self.replay)

    def judge(self, request: JudgeRequest) -> JudgeResponse:
        key = request.key()
        rec = self._records.get(key)
        if rec is None:
            raise JudgePending(f"{request.contract}: no recorded labels for request {key[:12]} in "
                               f"{self.path.name}")
        labels = rec.get("labels")
        if not isinstance(labels, dict):
            raise JudgeRejected(f"{request.contract}: the record for request {key[:12]} has no labels")
        pairs = [(c, lab) for c, lab in labels["__pairs__"]]
        for cand, label in pairs:
            if not isinstance(label, str):
                raise JudgeRejected(f"{request.contract}: label for {cand!r} is not a string")
        started = time.time()
        checked = validate_labels(request, pairs)
        return JudgeResponse(labels=checked, judge_id=str(rec.get("judge_id") or self.judge_id),
                             raw=json.dumps({k: v for k, v in pairs}, ensure_ascii=False),
                             request_key=key, started=started, finished=time.time(),
                             settings={"replayed_from": str(self.path)})
