"""Build `JudgeRequest`s for the five contracts and ask a judge under the contract rules.

Requests follow the data convention documented in `reqbench.core.judges.exact` (items with key fields
and quoted content, a candidate map, per-field label domains) and carry their contract's exact rule
(`judging.exact_rules`). `JudgeSession.ask` validates every
answer with `validate_labels` (each requested candidate exactly once, no extra candidate, only labels
of the candidate's own label field — backends validate the same way, so the llm backend re-asks on
its own), retries a rejected answer, keeps a call record of every attempt (request, response,
judge id, time) and raises `JudgePending` when no valid answer comes or the judge's provider fails:
the score then stays pending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reqbench.core.judges.base import Judge, JudgePending, JudgeRejected, JudgeRequest, validate_labels
from reqbench.core.llm.errors import ProviderError
from reqbench.protocols.takeover.judging.contracts import (
    CLARIFICATION,
    FIELD_IDENTITY,
    TEXT_EQUIVALENCE,
    Contract,
)
from reqbench.protocols.takeover.judging.exact_rules import RULES


def build_request(contract: Contract, items: Mapping[str, tuple[Mapping[str, Any], Mapping[str, Any]]],
                  extra: Mapping[str, Any] | None = None) -> JudgeRequest:
    """A request labelling every item in `items` (id -> (key fields, content)) on every label field
    of `contract`. One label field: candidate id = item id; several: ``<item id>#<label field>``."""
    fields = list(contract.label_domains)
    candidates: list[str] = []
    cmap: dict[str, dict[str, str]] = {}
    for item_id in items:
        for lf in fields:
            cand = item_id if len(fields) == 1 else f"{item_id}#{lf}"
            candidates.append(cand)
            cmap[cand] = {"item": item_id, "label_field": lf}
    data: dict[str, Any] = {
        "request_schema_version": contract.request_schema_version,
        "response_schema_version": contract.response_schema_version,
        "relation_item_fields": [*contract.key_fields, *fields],
        "relation_definitions": {lf: dict(d) for lf, d in contract.label_domains.items()},
        "label_domains": {lf: list(d) for lf, d in contract.label_domains.items()},
        "items": {i: {"key": dict(k), "content": dict(c)} for i, (k, c) in items.items()},
        "candidate_map": cmap,
    }
    if extra:
        data.update(extra)
    return JudgeRequest(contract=contract.name, instructions=contract.instructions, data=data,
                        candidates=candidates, labels=contract.labels, exact_rule=RULES.get(contract.name))


@dataclass(frozen=True)
class AlignSide:
    """One side of a requirement-alignment candidate (a prediction or a gold requirement)."""

    ref: str
    summary: str
    evidence_message_ids: tuple[Any, ...] = ()
    state: Mapping[str, Any] | None = None


def alignment_request(contract: Contract, predictions: Sequence[AlignSide], golds: Sequence[AlignSide],
                      context: Mapping[str, Any] | None = None,
                      messages: Mapping[str, Mapping[str, Any]] | None = None) -> JudgeRequest:
    """Every prediction-gold pair, item id ``p<i>.g<j>`` (input positions). `messages` (``str(id)`` ->
    message) quotes the text of every cited message next to its id, as the paper's judge saw the
    historical evidence (D.3: "history excerpt" among the request's data); ids not in it stay bare."""
    quoted = messages or {}

    def cited(ids: Sequence[Any]) -> list[Any]:
        return [dict(quoted[str(m)]) for m in ids if str(m) in quoted]

    items = {}
    for i, p in enumerate(predictions):
        for j, g in enumerate(golds):
            content: dict[str, Any] = {"prediction_summary": p.summary, "gold_summary": g.summary,
                                       "prediction_evidence_message_ids": list(p.evidence_message_ids),
                                       "gold_evidence_message_ids": list(g.evidence_message_ids)}
            if quoted:
                content["prediction_evidence_messages"] = cited(p.evidence_message_ids)
                content["gold_evidence_messages"] = cited(g.evidence_message_ids)
            items[f"p{i}.g{j}"] = ({"prediction_ref": p.ref, "gold_ref": g.ref}, content)

    def side(s: AlignSide) -> dict[str, Any]:
        out: dict[str, Any] = {"ref": s.ref, "summary": s.summary,
                               "evidence_message_ids": list(s.evidence_message_ids)}
        if quoted:
            out["evidence_messages"] = cited(s.evidence_message_ids)
        if s.state is not None:
            out["state"] = dict(s.state)
        return out

    extra = {"predictions": [side(p) for p in predictions], "gold": [side(g) for g in golds],
             "context": dict(context or {})}
    return build_request(contract, items, extra)


@dataclass(frozen=True)
class FieldCandidate:
    item_id: str
    prediction_field_ref: str
    gold_field_ref: str
    prediction_value: Any
    gold_value: Any
    requirement_summary: str


def field_identity_request(cands: Sequence[FieldCandidate]) -> JudgeRequest:
    items = {c.item_id: ({"prediction_field_ref": c.prediction_field_ref,
                          "gold_field_ref": c.gold_field_ref},
                         {"prediction_path": c.prediction_field_ref, "gold_path": c.gold_field_ref,
                          "prediction_value": c.prediction_value, "gold_value": c.gold_value,
                          "requirement_summary": c.requirement_summary})
             for c in sorted(cands, key=lambda c: c.item_id)}  # canonical order: the request key
    return build_request(FIELD_IDENTITY, items)              # must not depend on dict order upstream


def text_request(facts: Mapping[str, tuple[Any, str, str]]) -> JudgeRequest:
    """`facts`: fact id -> (predicted text, gold text, field path). Candidates are listed in fact-id order,
    so the request (and its cache key) is the same whatever order the response's fields came in."""
    items = {fid: ({"fact_id": fid}, {"path": path, "prediction_text": pred, "gold_text": gold})
             for fid, (pred, gold, path) in sorted(facts.items())}
    return build_request(TEXT_EQUIVALENCE, items)


@dataclass(frozen=True)
class BlockerCandidate:
    candidate_id: str
    requirement_summary: str
    dimension: str
    field: str | None
    prediction_missing_information: str
    gold_missing_information: str
    question: str
    acceptable_question_facts: tuple[str, ...]


def clarification_request(cands: Sequence[BlockerCandidate], task_text: str) -> JudgeRequest:
    items = {c.candidate_id: ({"candidate_id": c.candidate_id},
                              {"requirement_summary": c.requirement_summary, "dimension": c.dimension,
                               "field": c.field,
                               "prediction_missing_information": c.prediction_missing_information,
                               "gold_missing_information": c.gold_missing_information,
                               "question": c.question,
                               "acceptable_question_facts": list(c.acceptable_question_facts)})
             for c in cands}
    return build_request(CLARIFICATION, items, {"task": task_text})


def label_of(request: JudgeRequest, labels: Mapping[str, str], item_id: str, label_field: str) -> str:
    """The label of (item, label field) in an answer to `request`."""
    fields = list(request.data["label_domains"])
    return labels[item_id if len(fields) == 1 else f"{item_id}#{label_field}"]


@dataclass
class JudgeSession:
    """Asks one judge under the contract rules and keeps the call records of every attempt."""

    judge: Judge
    attempts: int = 3
    records: list[dict[str, Any]] = field(default_factory=list)
    messages: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The target's messages (``str(id)`` -> id, speaker, text) that alignment requests quote for cited ids."""

    def ask(self, request: JudgeRequest) -> dict[str, str]:
        """Validated labels for `request`; `JudgePending` after `attempts` rejected answers."""
        last: Exception | None = None
        request_body = {"contract": request.contract, "instructions": request.instructions,
                        "data": request.data, "candidates": list(request.candidates),
                        "labels": list(request.labels)}
        for attempt in range(1, self.attempts + 1):
            try:
                response = self.judge.judge(request)
                labels = validate_labels(request, list(response.labels.items()))
            except ProviderError as exc:
                # The judge could not be reached: the frozen response awaits evaluation (C.2).
                self.records.append({"request_key": request.key(), "contract": request.contract,
                                     "judge_id": getattr(self.judge, "judge_id", "?"), "attempt": attempt,
                                     "accepted": False, "error": f"provider: {exc}", "labels": {},
                                     "request": request_body})
                raise JudgePending(f"{request.contract}: judge provider failed: {exc}") from exc
            except JudgeRejected as exc:
                last = exc
                self.records.append({"request_key": request.key(), "contract": request.contract,
                                     "judge_id": getattr(self.judge, "judge_id", "?"), "attempt": attempt,
                                     "accepted": False, "error": str(exc), "labels": {},
                                     "request": request_body})
                continue
            record = response.record(request)
            record.update({"attempt": attempt, "accepted": True, "request": request_body})
            self.records.append(record)
            return labels
        raise JudgePending(f"{request.contract}: no valid judge answer after {self.attempts} "
                           f"attempts: {last}")
