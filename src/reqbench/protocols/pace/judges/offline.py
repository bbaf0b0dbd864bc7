"""The offline judge: an honest **heuristic**, not a semantic judgment.

It answers the L2 checklist by comparing, per criterion, the candidate's L1 evidence with the evidence
the *reference patch* produces for the same point (same localiser, same seeds). Features are the tokens
of the lines each change *adds* — declaration headers, decorators and docstrings excluded, because names
alone prove nothing — plus the tokens of candidate-added connections. A criterion's reference features
are narrowed to the lines sharing vocabulary with the criterion text. Judgment by multiset recall of
those features in the candidate's evidence: >= 0.85 covered, >= 0.4 partial, else missing.

Consequences, stated plainly: the reference scores 100 by construction; empty, unrelated and
identifier-only patches score (near) zero; an equivalent implementation written differently from the
reference is under-credited. Use `llm` (or `replay:FILE` of recorded judgments) for semantic judging.
Prohibitions (polarity forbid) cannot be observed by token overlap; the heuristic treats one as held when
the candidate delivered the point's scope (recall >= 0.4) and says so in its reasoning.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.l2 import PointRequest

COVERED_AT = 0.85
PARTIAL_AT = 0.4

_TOKEN = re.compile(r"""[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|"[^"\n]*"|'[^'\n]*'|==|!=|<=|>=|[-+*/%<>]""")
_HEADER = re.compile(r"^\s*(?:async\s+def|def|class)\s|^\s*@")
_WORD = re.compile(r"[a-z]{4,}")
_STOP = {"must", "should", "with", "that", "this", "when", "from", "into", "than", "each", "have", "does",
         "their", "every", "only", "same", "which", "where", "will", "been", "also", "self", "none", "true",
         "false", "return", "value", "values"}


def _subwords(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()
    return {w for w in _WORD.findall(spaced) if w not in _STOP}


def _added_lines(pkg: EvidencePackage) -> list[tuple[str, str]]:
    """(file, line) of every line the candidate adds in the package's diffs, minus headers/docstrings."""
    out = []
    for file, diff in pkg.diffs.items():
        in_doc = False
        for raw in diff.splitlines():
            if not raw.startswith("+") or raw.startswith("+++"):
                continue
            line = raw[1:]
            quotes = line.count('"""') + line.count("'''")
            if in_doc or quotes:
                if quotes % 2 == 1:
                    in_doc = not in_doc
                continue
            if _HEADER.match(line) or not line.strip() or line.strip().startswith("#"):
                continue
            out.append((file, line))
    out += [(c.file, c.text) for c in pkg.connections if c.origin == "candidate"]
    return out


def _tokens(lines: list[tuple[str, str]]) -> Counter[str]:
    return Counter(t for _, line in lines for t in _TOKEN.findall(line))


class OfflineJudge:
    """Reference-similarity heuristic judge (see module docstring). Needs the reference packages."""

    judge_id = "offline-heuristic/v1"

    def __init__(self, reference: Mapping[str, EvidencePackage]) -> None:
        self.reference = reference

    def judge_point(self, request: PointRequest) -> dict:
        ref_pkg = self.reference.get(request.point_id)
        cand_pkg = request.package
        ref_lines = _added_lines(ref_pkg) if ref_pkg else []
        cand_lines = _added_lines(cand_pkg) if cand_pkg else []
        cand_tokens = _tokens(cand_lines)
        cite = (", ".join(f"{i.file}::{i.qname}" for i in cand_pkg.changed[:4])
                if cand_pkg and cand_pkg.changed else "no candidate declaration relevant to this point")
        entries = []
        for crit in request.criteria:
            focus = self._focus(crit["text"], ref_lines)
            ref_tokens = _tokens(focus)
            total = sum(ref_tokens.values())
            recall = (sum(min(n, cand_tokens[t]) for t, n in ref_tokens.items()) / total) if total else 0.0
            judgment = "covered" if recall >= COVERED_AT else "partial" if recall >= PARTIAL_AT else "missing"
            entries.append({"criterion_id": crit["criterion_id"], "severity": crit["severity"],
                            "judgment": judgment, "evidence": cite,
                            "reasoning": self._reason(crit, judgment, recall, total, ref_pkg, cand_pkg)})
        return {"evidence_checklist": entries, "missing_evidence": []}

    @staticmethod
    def _focus(text: str, ref_lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
        words = _subwords(text)
        focus = [fl for fl in ref_lines if _subwords(fl[1]) & words]
        return focus if sum(len(_TOKEN.findall(f[1])) for f in focus) >= 5 else ref_lines

    @staticmethod
    def _reason(crit: dict, judgment: str, recall: float, total: int, ref: EvidencePackage | None,
                cand: EvidencePackage | None) -> str:
        head = f"heuristic: {recall:.0%} of {total} reference evidence tokens for this criterion observed"
        if crit.get("polarity") == "forbid":
            head += "; prohibition taken as held only within a delivered scope"
        if judgment == "covered":
            return head
        if total == 0:
            return head + "; the reference gives no localisable evidence (incomplete implementation)"
        if cand is None or not (cand.changed or cand.diffs):
            return head + "; incomplete implementation: no candidate change reaches this point"
        ref_edges = {(c.kind, c.target) for c in (ref.connections if ref else []) if c.origin == "candidate"
                     and c.kind != "call"}
        cand_edges = {(c.kind, c.target) for c in cand.connections if c.origin == "candidate"}
        lost = sorted(ref_edges - cand_edges)
        if lost:
            shown = ", ".join(f"{k} -> {t}" for k, t in lost[:3])
            return head + f"; integration gap: expected registration/wiring not observed ({shown})"
        ref_files = {f for f, _ in _added_lines(ref)} if ref else set()
        if ref_files and all("test" in f.rsplit("/", 1)[-1] for f in ref_files):
            return head + "; test-delivery gap: the expected tests are not delivered"
        return head + "; incomplete implementation: required behaviour only partly present"
