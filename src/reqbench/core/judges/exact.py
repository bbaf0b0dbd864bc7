"""The `exact` judge: the offline default. Deterministic, documented, normalised string rules.

It answers the semantic-judge contracts with string identity instead of meaning, so it never invents
an equivalence: whatever the rule does not establish gets the contract's negative label. Scores built
on it are therefore a lower bound of what a semantic judge would give (paraphrases count as different).

Request data convention (shared by every contract; protocols build requests in this shape)::

    request.data = {
      "request_schema_version": str,          # e.g. "rq1-alignment-request-v1"
      "response_schema_version": str,         # e.g. "rq1-alignment-response-v1"
      "relation_definitions": {label: meaning},
      "items": {item_id: {"key": {...relation-item key fields...}, "content": {...quoted data...}}},
      "candidate_map": {candidate_id: {"item": item_id, "label_field": str}},
      "label_domains": {label_field: [allowed labels]},
    }

Every candidate in ``request.candidates`` names one (item, label field). A contract with one label per
item uses the item id as candidate id; the clarification contract has two label fields per item.

Rules, by contract name (``normalise`` = case-fold, then collapse runs of whitespace, then strip):

* ``rq1_requirement_alignment`` and ``requirement_alignment`` — ``SAME_ATOM`` iff
  ``normalise(content.prediction_summary) == normalise(content.gold_summary)``, else ``UNRELATED``.
* ``attribute_field_identity`` — ``SAME_STATE_VARIABLE`` iff ``content.prediction_path`` equals
  ``content.gold_path`` exactly (field identity by exact path only), else ``DIFFERENT_STATE_VARIABLE``.
* ``text_equivalence`` — ``EQUIVALENT`` iff both ``content.prediction_text`` and ``content.gold_text`` are
  strings and their normalised forms are equal, else ``NOT_EQUIVALENT``.
* ``clarification_semantic`` — label field ``issue_relation``: ``EQUIVALENT`` iff the normalised
  ``content.prediction_missing_information`` equals the normalised ``content.gold_missing_information``,
  else ``NOT_EQUIVALENT``; label field ``question_validity``: ``VALID`` iff the normalised
  ``content.question`` contains at least one normalised entry of ``content.acceptable_question_facts``,
  else ``INVALID``.

``UNCERTAIN`` is never produced.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.judges.base import JudgeRequest, JudgeResponse, validate_labels

EXACT_JUDGE_ID = "exact-v1"

_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Case-fold, collapse whitespace runs to one space, strip."""
    return _WS.sub(" ", text.casefold()).strip()


def _same_text(a: Any, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and normalise(a) == normalise(b)


def _alignment(content: Mapping[str, Any], field: str) -> str:
    same = _same_text(content.get("prediction_summary"), content.get("gold_summary"))
    return "SAME_ATOM" if same else "UNRELATED"


def _field_identity(content: Mapping[str, Any], field: str) -> str:
    same = content.get("prediction_path") == content.get("gold_path")
    return "SAME_STATE_VARIABLE" if same else "DIFFERENT_STATE_VARIABLE"


def _text(content: Mapping[str, Any], field: str) -> str:
    same = _same_text(content.get("prediction_text"), content.get("gold_text"))
    return "EQUIVALENT" if same else "NOT_EQUIVALENT"


def _clarification(content: Mapping[str, Any], field: str) -> str:
    if field == "issue_relation":
        same = _same_text(content.get("prediction_missing_information"),
                          content.get("gold_missing_information"))
        return "EQUIVALENT" if same else "NOT_EQUIVALENT"
    question = content.get("question")
    facts = content.get("acceptable_question_facts") or []
    if isinstance(question, str):
        asked = normalise(question)
        if any(isinstance(f, str) and normalise(f) and normalise(f) in asked for f in facts):
            return "VALID"
    return "INVALID"


RULES: dict[str, Callable[[Mapping[str, Any], str], str]] = {
    "rq1_requirement_alignment": _alignment,
    "requirement_alignment": _alignment,
    "attribute_field_identity": _field_identity,
    "text_equivalence": _text,
    "clarification_semantic": _clarification,
}


class ExactJudge:
    """Answers the contracts in `RULES` deterministically (see the module docstring)."""

    judge_id = EXACT_JUDGE_ID

    def judge(self, request: JudgeRequest) -> JudgeResponse:
        rule = RULES.get(request.contract)
        if rule is None:
            raise InputError(f"the exact judge has no rule for contract {request.contract!r} "
                             f"(known: {', '.join(sorted(RULES))})")
        started = time.time()
        items = request.data.get("items", {})
        cmap = request.data.get("candidate_map", {})
        pairs: list[tuple[str, str]] = []
        for cand in request.candidates:
            entry = cmap.get(cand, {"item": cand, "label_field": "relation"})
            content = items.get(entry["item"], {}).get("content", {})
            pairs.append((cand, rule(content, entry.get("label_field", "relation"))))
        labels = validate_labels(request, pairs)
        return JudgeResponse(labels=labels, judge_id=self.judge_id, request_key=request.key(),
                             started=started, finished=time.time(), settings={"rules": "exact-v1"})
