"""The judge contract: a judge returns relation *labels* for enumerated candidates; programs score.

A protocol builds a `JudgeRequest` (which contract, the instructions, the quoted data, the candidate ids
and the allowed labels, and the contract's deterministic rule if it has one). A backend (`exact`,
`replay:FILE`, `llm:MODEL`) answers with a `JudgeResponse`.
`validate_labels` enforces the contract every backend shares (ReqMemBench D.3): every requested
candidate labelled exactly once, no extra candidates, only enumerated labels. A response that breaks it
is rejected (`JudgeRejected`); callers retry and, when retries run out, leave the score *pending* —
never silently zero.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from reqbench.core.errors import ReqbenchError
from reqbench.core.hashing import sha256_json


class JudgeRejected(ReqbenchError):
    """A judge response violated the contract (missing/duplicate/extra candidate, unknown label)."""


class JudgePending(ReqbenchError):
    """No valid judge response could be obtained; the dependent score stays pending."""


ExactRule = Callable[[Mapping[str, Any], str], str]
"""A contract's deterministic rule: (an item's quoted content, the label field) -> the label."""


@dataclass(frozen=True)
class JudgeRequest:
    contract: str
    """Contract name, e.g. ``requirement_alignment``, ``attribute_field_identity``, ``text_equivalence``."""
    instructions: str
    """What the judge is asked; never contains the data (data is quoted separately)."""
    data: Mapping[str, Any]
    """Quoted content (histories, summaries, candidate texts); always data, never instructions."""
    candidates: Sequence[str]
    """Ids of the items to label, each exactly once."""
    labels: Sequence[str]
    """The enumerated labels allowed for this contract."""
    exact_rule: ExactRule | None = field(default=None, compare=False, repr=False)
    """The contract's deterministic rule, which the ``exact`` judge applies (None: the contract has none).
    Defined by the protocol that owns the contract; not part of the request key."""

    def key(self) -> str:
        """Content address of the request (cache key for record/replay)."""
        return sha256_json({"contract": self.contract, "instructions": self.instructions,
                            "data": self.data, "candidates": list(self.candidates),
                            "labels": list(self.labels)})


@dataclass
class JudgeResponse:
    labels: dict[str, str]
    judge_id: str
    raw: str = ""
    request_key: str = ""
    started: float = field(default_factory=time.time)
    finished: float = field(default_factory=time.time)
    settings: dict[str, Any] = field(default_factory=dict)

    def record(self, request: JudgeRequest) -> dict[str, Any]:
        """The call record stored in the run store: request, response, judge id, time."""
        return {"judge_id": self.judge_id, "contract": request.contract, "request_key": request.key(),
                "candidates": list(request.candidates), "labels": self.labels, "raw": self.raw,
                "settings": self.settings, "started": self.started, "finished": self.finished}


@runtime_checkable
class Judge(Protocol):
    judge_id: str

    def judge(self, request: JudgeRequest) -> JudgeResponse:
        """Label every candidate. May raise `JudgeRejected` (retryable) or `JudgePending`."""
        ...


def validate_labels(request: JudgeRequest, pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Check raw (candidate, label) pairs against the request; return the label map or raise.

    Rejects: an unknown candidate, a candidate labelled twice, a missing candidate, a label outside
    ``request.labels``. When the request data follows the per-field convention (``candidate_map``
    naming each candidate's ``label_field`` and ``label_domains`` listing each field's labels, see
    `reqbench.core.judges.exact`), a label outside its own field's domain is rejected too.
    """
    wanted = list(request.candidates)
    allowed = set(request.labels)
    data: Mapping[str, Any] = request.data if isinstance(request.data, Mapping) else {}
    raw_domains, raw_cmap = data.get("label_domains"), data.get("candidate_map")
    domains: Mapping[str, Any] = raw_domains if isinstance(raw_domains, Mapping) else {}
    cmap: Mapping[str, Any] = raw_cmap if isinstance(raw_cmap, Mapping) else {}
    out: dict[str, str] = {}
    for cand, label in pairs:
        if cand not in wanted:
            raise JudgeRejected(f"{request.contract}: extra candidate {cand!r} not in the request")
        if cand in out:
            raise JudgeRejected(f"{request.contract}: candidate {cand!r} labelled twice")
        if label not in allowed:
            raise JudgeRejected(f"{request.contract}: label {label!r} for {cand!r} is not one of "
                                f"{sorted(allowed)}")
        field_name = str((cmap.get(cand) or {}).get("label_field", ""))
        if field_name in domains and label not in domains[field_name]:
            raise JudgeRejected(f"{request.contract}: label {label!r} for {cand!r} is not one of the "
                                f"{field_name} labels {list(domains[field_name])}")
        out[cand] = label
    missing = [c for c in wanted if c not in out]
    if missing:
        raise JudgeRejected(f"{request.contract}: candidates not labelled: {missing}")
    return out


def judge_with_retries(judge: Judge, request: JudgeRequest, attempts: int = 3) -> JudgeResponse:
    """Ask `judge`, retrying rejected responses; raise `JudgePending` when all attempts are rejected."""
    last: Exception | None = None
    for _ in range(attempts):
        try:
            return judge.judge(request)
        except JudgeRejected as exc:
            last = exc
    raise JudgePending(f"{request.contract}: no valid response after {attempts} attempts: {last}")
