"""The ``exact`` judge: each contract's own deterministic rule, applied item by item.

``exact`` has one meaning everywhere: the rule the protocol wrote down for the contract
(`JudgeRequest.exact_rule`), documented next to the contract (takeover's five are in
`reqbench.protocols.takeover.judging.exact_rules`). A contract without a rule refuses the ``exact`` judge
with an `InputError`; heuristics have their own names (``token-overlap``, ``word-overlap``).

Request data convention (shared by every contract that has a rule)::

    request.data = {
      "items": {item_id: {"key": {...relation-item key fields...}, "content": {...quoted data...}}},
      "candidate_map": {candidate_id: {"item": item_id, "label_field": str}},
      "label_domains": {label_field: [allowed labels]},
      ...anything else the contract quotes
    }

Every candidate in ``request.candidates`` names one (item, label field); a candidate missing from the map
is the item of the same id with label field ``relation``. The rule's labels are validated like any
judge's (`validate_labels`).
"""

from __future__ import annotations

import time

from reqbench.core.errors import InputError
from reqbench.core.judges.base import JudgeRequest, JudgeResponse, validate_labels

EXACT_JUDGE_ID = "exact-v1"


class ExactJudge:
    """Applies the request's own deterministic rule to every candidate (see the module docstring)."""

    judge_id = EXACT_JUDGE_ID

    def judge(self, request: JudgeRequest) -> JudgeResponse:
        rule = request.exact_rule
        if rule is None:
            raise InputError(f"the exact judge has no rule for contract {request.contract!r}: that contract "
                             "defines none (use an llm:MODEL or replay:FILE judge, or the protocol's heuristic)",
                             item="--judge")
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
