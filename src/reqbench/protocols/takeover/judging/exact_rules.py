"""The deterministic rules of the five takeover contracts: what ``--judge exact`` means for them.

They answer the semantic-judge contracts with string identity instead of meaning, so they never invent
an equivalence: whatever a rule does not establish gets the contract's negative label. Scores built on
them are therefore a lower bound of what a semantic judge would give (paraphrases count as different).
`build_request` attaches the rule of its contract to every request (`JudgeRequest.exact_rule`).

Rules, by contract name (``normalise`` = case-fold, then collapse runs of whitespace, then strip):

* ``rq1_requirement_alignment`` and ``requirement_alignment`` -- ``SAME_ATOM`` iff
  ``normalise(content.prediction_summary) == normalise(content.gold_summary)``, else ``UNRELATED``.
* ``attribute_field_identity`` -- ``SAME_STATE_VARIABLE`` iff ``content.prediction_path`` equals
  ``content.gold_path`` exactly (field identity by exact path only), else ``DIFFERENT_STATE_VARIABLE``.
* ``text_equivalence`` -- ``EQUIVALENT`` iff both ``content.prediction_text`` and ``content.gold_text`` are
  strings and their normalised forms are equal, else ``NOT_EQUIVALENT``.
* ``clarification_semantic`` -- label field ``issue_relation``: ``EQUIVALENT`` iff the normalised
  ``content.prediction_missing_information`` equals the normalised ``content.gold_missing_information``,
  else ``NOT_EQUIVALENT``; label field ``question_validity``: ``VALID`` iff the normalised
  ``content.question`` contains at least one normalised entry of ``content.acceptable_question_facts``,
  else ``INVALID``.

``UNCERTAIN`` is never produced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reqbench.core.judges.base import ExactRule

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


RULES: dict[str, ExactRule] = {
    "rq1_requirement_alignment": _alignment,
    "requirement_alignment": _alignment,
    "attribute_field_identity": _field_identity,
    "text_equivalence": _text,
    "clarification_semantic": _clarification,
}
"""contract name -> its exact rule."""
