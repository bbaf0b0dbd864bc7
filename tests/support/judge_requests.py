"""A classify-task `JudgeRequest` built from items and label fields, as the judge tests need it."""

from __future__ import annotations

from typing import Any

from reqbench.core.judges.base import JudgeRequest

# The label fields of the takeover alignment contract.
ALIGN = {
    "relation": [
        "SAME_ATOM",
        "MERGED_ATOMS",
        "SUBPART_OF_ATOM",
        "RELATED_DIFFERENT_ATOM",
        "UNRELATED",
        "UNCERTAIN",
    ]
}


def classify_request(contract: str, items: dict[str, dict], fields: dict[str, list[str]],
                     exact_rule: Any = None) -> JudgeRequest:
    """One candidate per item (per item and label field when there are several fields)."""
    cands, cmap = [], {}
    for item in items:
        for lf in fields:
            cand = item if len(fields) == 1 else f"{item}#{lf}"
            cands.append(cand)
            cmap[cand] = {"item": item, "label_field": lf}
    labels = sorted({lab for dom in fields.values() for lab in dom})
    payload = {"items": {i: {"key": {}, "content": c} for i, c in items.items()}, "candidate_map": cmap,
               "label_domains": fields}
    if exact_rule is None:
        return JudgeRequest(contract, "classify", payload, cands, labels)
    return JudgeRequest(contract, "classify", payload, cands, labels, exact_rule=exact_rule)
