"""Construction tooling: candidate Code Points from a PRD and a reference diff (paper §2, appendix O.3).

Three model passes, prompts in our own words following the paper's rules: a PRD-only pass (required
behaviours, no code), a diff-only pass (substantive changes, no business purpose), and a reconciliation
that keeps conditions supported by both views, drops incidental edits and splits composite outcomes.
The output is a YAML list of candidate Code Points marked ``reviewed: false`` — input for human review
and `reqbench pace freeze`, never a frozen contract by itself.

Around the three passes, the paper's two other construction prompts (appendix O.2 and "Contract Review"):
a production record can first be reconstructed into the PRD (`reconstruct.py`), and the reconciled
candidates are then audited (`audit.py`, on by default; the findings are attached, nothing is removed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, sha256_text
from reqbench.protocols.pace.l2 import _strip_fences
from reqbench.protocols.pace.llm import chat, resolve_model
from reqbench.protocols.pace.repo import patch_paths

PRD_PASS = """Read the requirement document below; you have no access to any code. List every behaviour it
requires that could be checked on its own. Keep identifiers the document makes mandatory apart from
choices it leaves to the developer. Infer nothing the document does not support.
Answer with JSON only: {"functional_points": [{"description": "...", "specified_identifiers": [...],
"implied_changes": [...], "priority": "high|medium|low", "reasoning": "..."}]}"""

DIFF_PASS = """Read the file diffs below; you have no requirement document. Describe the substantive changes
file by file, telling new files from modified ones and naming the symbols involved. Mark test files.
Skip formatting-, comment- and import-only edits. Do not guess the business purpose.
Answer with JSON only: {"change_points": [{"target_file": "...", "change_type": "added|modified|deleted",
"description": "...", "symbols": [...], "is_test": false}]}"""

RECONCILE = """Compare the requirement view and the implementation view below, with the requirement summary
and the changed-file list. Propose atomic acceptance conditions that the requirement supports and the
accepted change evidences. Remove incidental refactoring and duplicates; split composite outcomes into
units that can be verified separately. For each, record its source (explicit, derived or implicit),
retrieval hints (paths or Owner.symbol), permitted alternatives and, only for an explicitly required
structure or interface value, a symbolic contract. Otherwise names and paths guide retrieval and do not
define acceptance. Findings supported only by the requirement stay in the list flagged for review.
Answer with JSON only: {"code_points": [{"id": "CP01", "description": "...", "provenance":
"explicit|derived|implicit", "criteria": [{"criterion_id": "CP01.c1", "text": "...", "polarity":
"require|forbid", "severity": "hard|soft"}], "retrieval_hints": [...], "allowed_alternatives": [...],
"contract": null, "weight": 1.0, "requirement_only": false}]}"""


def _ask(system: str, payload: dict[str, Any], model: str, what: str) -> dict[str, Any]:
    text = chat(
        [
            {"role": "system", "content": system},
            {"role": "user", "content": "DATA\n" + json.dumps(payload, ensure_ascii=False, indent=1)},
        ],
        model,
    )
    try:
        data = json.loads(_strip_fences(text))
    except json.JSONDecodeError as exc:
        raise InputError(f"the {what} answer is not JSON ({exc.msg})", item=what) from exc
    if not isinstance(data, dict):
        raise InputError(f"the {what} answer is not a JSON object", item=what)
    return data


def synthesize(prd: str, diff: str, out: Path, model: str | None = None, *, audit: bool = True,
               reconstructed_from: str | None = None) -> Path:
    """Run the three passes (and the contract audit unless `audit` is False) and write unreviewed candidate
    Code Points to `out` (YAML). `reconstructed_from` names the production record the PRD came from."""
    from reqbench.protocols.pace.audit import audit_candidates

    name = resolve_model(model)
    req_view = _ask(PRD_PASS, {"prd": prd}, name, "PRD-only pass")
    impl_view = _ask(DIFF_PASS, {"file_diffs": diff}, name, "diff-only pass")
    merged = _ask(
        RECONCILE,
        {
            "requirement_view": req_view,
            "implementation_view": impl_view,
            "requirement_summary": prd[:2000],
            "changed_file_list": patch_paths(diff),
        },
        name,
        "reconciliation",
    )
    points = merged.get("code_points")
    if not isinstance(points, list) or not points:
        raise InputError("reconciliation returned no code_points", item="reconciliation")
    audit_doc = audit_candidates(prd, diff, points, name) if audit else None
    doc = {
        "reviewed": False,
        "model": name,
        "prd_reconstructed_from": reconstructed_from,
        "prd_sha256": sha256_text(prd),
        "diff_sha256": sha256_text(diff),
        "note": "Candidate Code Points for expert review; edit, then copy into case.yaml and freeze.",
        "requirement_view": req_view,
        "implementation_view": impl_view,
        "code_points": points,
        "contract_audit": audit_doc,
    }
    atomic_write_text(Path(out), yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return Path(out)
