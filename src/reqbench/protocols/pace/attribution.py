"""Symptom-signal attribution (paper §3.2, appendix "Attribution rules"): three views kept apart.

* **Outcome symptoms** — each non-Covered point's weighted loss w(1 - phi) goes to exactly one symptom,
  read from the judge's structured reasons (one schema flag per symptom) in the fixed priority order
  contract mismatch > integration gap > test-delivery gap > incomplete implementation (`classify_point`).
* **Process signals** — deterministic scans of the trajectory and patch: expected files never retrieved,
  no post-edit verification, verification gaps, error recovery (`process_signals`). A case can carry
  several; co-occurrence with a symptom does not prove cause.
* **Quality observations** — naming, conventions, test delivery (`quality_observations`); reported
  beside the score, never added to it.

Everything here is a function of saved artifacts; no judge is called.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from reqbench.protocols.pace import repo
from reqbench.protocols.pace.aggregate import weighted_loss
from reqbench.protocols.pace.case import Case
from reqbench.protocols.pace.models import Verdict

SYMPTOMS = ("contract_mismatch", "integration_gap", "test_delivery_gap", "incomplete_implementation")
SIGNALS = (
    "expected_files_never_retrieved",
    "no_post_edit_verification",
    "verification_gap",
    "error_recovery",
)

def classify_point(point: Any) -> tuple[str, str]:
    """The symptom a non-Covered point's loss goes to, and what it was read from.

    Paper appendix "Attribution rules": "The outcome classifier reads the cited reasoning of each
    non-Covered point in a fixed priority order: contract or target mismatch, integration or registration
    gap, test-delivery gap, and incomplete implementation. Each point contributes w_i(1 - phi(y_i)) to one
    symptom." The reasoning is read in structured form: every checklist entry carries one flag per
    symptom (`models.Gaps`), so no keyword matching is involved. The symptom is the first in priority
    order flagged by any non-covered entry of the point. An L0 closure is a contract mismatch by
    definition (a conclusive violation of the symbolic contract). A non-covered point whose entries flag
    nothing goes to incomplete implementation (the paper's last, residual category), with basis
    ``default`` so the report can count how often that happened.
    """
    if point.stage == "L0":
        return "contract_mismatch", "L0"
    flagged: set[str] = set()
    for e in (point.checklist or {}).get("evidence_checklist", []):
        if e.get("judgment") != "covered":
            flagged |= {k for k, v in (e.get("gaps") or {}).items() if v}
    for name in SYMPTOMS:
        if name in flagged:
            return name, "judge"
    return "incomplete_implementation", "default"


def attribute_case(case: Case, result: Any) -> dict[str, Any]:
    """Per-point symptom and loss, and the loss per symptom, for a scored `CaseResult`."""
    points = []
    by_symptom = dict.fromkeys(SYMPTOMS, 0.0)
    for p in result.points:
        if p.verdict in (Verdict.COVERED, Verdict.UNRESOLVED):
            continue
        symptom, basis = classify_point(p)
        loss = weighted_loss(p.verdict, p.weight)
        by_symptom[symptom] += loss
        points.append({"point_id": p.point_id, "verdict": p.verdict.value, "symptom": symptom,
                       "basis": basis, "loss": loss})
    return {
        "points": points,
        "loss_by_symptom": by_symptom,
        "symptoms": sorted({pt["symptom"] for pt in points}),
    }


def _event_text(e: dict[str, Any]) -> str:
    return " ".join(str(v) for k, v in e.items() if k not in ("ts", "usage"))


def _is_verification(e: dict[str, Any]) -> bool:
    if e.get("kind") == "test_run":
        return True
    text = str(e.get("command") or e.get("cmd") or "")
    return e.get("kind") == "command" and bool(
        re.search(
            r"pytest|unittest|tox|make (?:test|check)|"
            r"npm test|go test|mvn|gradle|ruff|mypy",
            text,
        )
    )


def _failed(e: dict[str, Any]) -> bool:
    code = e.get("exit_code", e.get("returncode"))
    if code is not None:
        return bool(code != 0)
    return e.get("passed") is False or str(e.get("outcome", "")).lower() in ("fail", "failed", "error")


def _is_edit(e: dict[str, Any]) -> bool:
    """An edit is what happened to the workspace, however it was made: an editor tool event, or a step
    (a shell command) after which the workspace differed (`files_changed`, recorded by the agent loop)."""
    return e.get("kind") == "file_edit" or bool(e.get("files_changed"))


def process_signals(case: Case, patch: str, trajectory: list[dict[str, Any]]) -> dict[str, Any]:
    """Deterministic process signals from trajectory events; `available: False` without a trajectory.

    Paper appendix "Attribution rules": "Process rules independently scan tool events, retrieved files,
    patches, verification commands, and their outcomes"; Table 3's post-edit verification is "a
    successful strict project-verification command after the last observed edit". An edit is read from
    what happened (`_is_edit`): editor events and shell commands that changed the workspace, so an agent
    that edits with `sed -i` and never re-runs its tests gets `no_post_edit_verification`.
    """
    if not trajectory:
        return {"available": False, "signals": []}
    expected = sorted(set(repo.patch_paths(case.reference_patch)))
    seen_text = " ".join(_event_text(e) for e in trajectory)
    never = [p for p in expected if p not in seen_text]
    edits = [i for i, e in enumerate(trajectory) if _is_edit(e)]
    checks = [i for i, e in enumerate(trajectory) if _is_verification(e)]
    signals = []
    if never:
        signals.append("expected_files_never_retrieved")
    last_edit = edits[-1] if edits else -1
    post = [i for i in checks if i > last_edit]
    if edits and not any(not _failed(trajectory[i]) for i in post):
        signals.append("no_post_edit_verification")
    if checks and _failed(trajectory[checks[-1]]):
        signals.append("verification_gap")
    failures = [
        i for i, e in enumerate(trajectory) if e.get("kind") in ("command", "test_run") and _failed(e)
    ]
    if failures and failures[0] < len(trajectory) - 1:
        signals.append("error_recovery")
    return {
        "available": True,
        "signals": signals,
        "expected_files_never_retrieved": never,
        "edits": len(edits),
        "shell_edits": sum(1 for i in edits if trajectory[i].get("kind") != "file_edit"),
        "verification_commands": len(checks),
        "post_edit_verifications": len(post),
    }


_SNAKE = re.compile(r"^_{0,2}[a-z][a-z0-9_]*_{0,2}$")
_CAPS = re.compile(r"^_?[A-Z][A-Za-z0-9]*$")


def quality_observations(patch: str) -> dict[str, Any]:
    """Naming, convention and test-delivery observations of a patch; never part of the score."""
    added = [ln[1:] for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    names = re.findall(r"^\s*(def|class)\s+(\w+)", "\n".join(added), flags=re.M)
    bad = [n for kind, n in names if not (_SNAKE if kind == "def" else _CAPS).match(n)]
    files = repo.patch_paths(patch)
    return {
        "naming": {"declarations": len(names), "nonconforming": bad},
        "conventions": {
            "long_lines": sum(1 for ln in added if len(ln) > 120),
            "trailing_whitespace": sum(1 for ln in added if ln != ln.rstrip()),
            "print_calls": sum(1 for ln in added if re.search(r"\bprint\(", ln)),
        },
        "test_delivery": {"test_files": [f for f in files if re.search(r"(^|/)tests?(/|_)|_test\.", f)]},
    }


def cooccurrence(cases: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Cases (scored case dicts) having both the row's symptom and the column's signal (signals are not a
    partition)."""
    return symptom_signal_counts(((c.get("attribution") or {}).get("symptoms", []),
                                  (c.get("process_signals") or {}).get("signals", [])) for c in cases)


def symptom_signal_counts(cases: Iterable[tuple[Iterable[str], Iterable[str]]]) -> dict[str, dict[str, int]]:
    """`cooccurrence` of cases given as (symptoms, process signals)."""
    table = {s: dict.fromkeys(SIGNALS, 0) for s in SYMPTOMS}
    for case_symptoms, case_signals in cases:
        symptoms, signals = set(case_symptoms), set(case_signals)
        for s in symptoms:
            for g in signals:
                if s in table and g in table[s]:
                    table[s][g] += 1
    return table
