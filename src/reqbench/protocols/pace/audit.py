"""Contract audit of candidate Code Points (paper appendix "Contract Review", prompt "Contract audit").

The audit sees only the standardized PRD, the accepted reference patch and the proposed Code Points. A
retained condition needs requirement support *and* implementation evidence; file or symbol existence alone
does not prove behaviour. It flags duplicates, composite conditions, unsupported names, incidental changes
and conflicts with the requirement, cites evidence, recommends keep / merge / rewrite / remove, and marks
unresolved scope questions for the expert instead of guessing.

As in the paper, "an automated audit supplies evidence to the final technical reviewers; it does not
independently admit Code Points into the suite": this module never removes or edits a candidate, it
attaches its findings. Code checks the answer's shape — exactly one entry per candidate id, a known
recommendation, known flags, a `merge_with` naming other candidates for `merge` — and re-asks once with the
reason before refusing.
"""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.errors import InputError
from reqbench.protocols.pace.l2 import _strip_fences
from reqbench.protocols.pace.llm import chat

CONTRACT_AUDIT = """Assess each candidate Code Point using only the standardized PRD, the accepted reference
patch and the proposed Code Points below. A retained condition needs requirement support and implementation
evidence. File or symbol existence alone does not prove a required behaviour. Flag duplicates, composite
conditions, unsupported names, incidental changes and conflicts with the requirement. Return cited evidence
and a recommendation: keep, merge, rewrite or remove. Mark unresolved scope questions for expert review
rather than guessing.
Answer with JSON only: {"audit": [{"id": "CP01", "recommendation": "keep|merge|rewrite|remove",
"flags": ["duplicate|composite|unsupported_name|incidental|conflict"], "merge_with": [],
"requirement_evidence": "quote from the PRD", "implementation_evidence": "file and quote from the patch",
"reason": "..."}], "scope_questions": ["..."]}"""

RECOMMENDATIONS = ("keep", "merge", "rewrite", "remove")
FLAGS = ("duplicate", "composite", "unsupported_name", "incidental", "conflict")


def check_audit(answer: Any, ids: list[str]) -> str | None:
    """Why `answer` is not a complete audit of the candidates `ids`, or None."""
    if not isinstance(answer, dict) or not isinstance(answer.get("audit"), list):
        return "the answer needs an `audit` list"
    seen: list[str] = []
    for entry in answer["audit"]:
        if not isinstance(entry, dict):
            return "every audit entry must be an object"
        cid = entry.get("id")
        if cid not in ids:
            return f"audit entry for unknown candidate {cid!r}"
        if cid in seen:
            return f"candidate {cid} audited twice"
        seen.append(cid)
        if entry.get("recommendation") not in RECOMMENDATIONS:
            return f"{cid}: recommendation must be one of {list(RECOMMENDATIONS)}"
        bad = [f for f in entry.get("flags") or [] if f not in FLAGS]
        if bad:
            return f"{cid}: unknown flags {bad}"
        partners = entry.get("merge_with") or []
        if entry["recommendation"] == "merge" and (not partners or any(p not in ids or p == cid
                                                                        for p in partners)):
            return f"{cid}: merge needs merge_with naming other candidates"
    absent = [i for i in ids if i not in seen]
    if absent:
        return f"candidates not audited: {absent}"
    if not isinstance(answer.get("scope_questions", []), list):
        return "scope_questions must be a list"
    return None


def audit_candidates(prd: str, diff: str, code_points: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """Audit the candidates; returns ``{"audit": [...], "scope_questions": [...], "recommendations": {..}}``
    (counts per recommendation). The candidates themselves are not changed."""
    ids = [str(p.get("id")) for p in code_points if isinstance(p, dict)]
    if len(ids) != len(code_points) or len(set(ids)) != len(ids):
        raise InputError("candidate Code Points need unique ids before the audit", item="contract audit")
    payload = {"standardized_prd": prd, "reference_patch": diff, "proposed_code_points": code_points}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": CONTRACT_AUDIT},
        {"role": "user", "content": "DATA\n" + json.dumps(payload, ensure_ascii=False, indent=1)},
    ]
    problem = ""
    for attempt in range(2):
        text = chat(messages, model)
        try:
            answer: Any = json.loads(_strip_fences(text))
        except json.JSONDecodeError as exc:
            answer, problem = None, f"not JSON ({exc.msg})"
        else:
            problem = check_audit(answer, ids) or ""
        if not problem:
            entries = sorted(answer["audit"], key=lambda e: ids.index(e["id"]))
            counts = {r: sum(e["recommendation"] == r for e in entries) for r in RECOMMENDATIONS}
            return {"audit": entries, "scope_questions": list(answer.get("scope_questions") or []),
                    "recommendations": counts}
        if attempt == 0:
            messages += [{"role": "assistant", "content": text},
                         {"role": "user", "content": f"The audit was rejected: {problem}. Answer again."}]
    raise InputError(f"the contract audit was rejected twice ({problem})", item="contract audit")
