"""The ``token-overlap`` judge: an honest **heuristic**, not a semantic judgment.

It answers the L2 checklist by comparing, per criterion, the candidate's L1 evidence with the evidence
the *reference patch* produces for the same point (same localiser, same seeds), counting on both sides only
the code that is wired in (`wired.wired_package`: live, and reachable through the L1 connection inventory),
so identifiers stuffed into dead or unreached code raise nothing. Features are the tokens
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
from typing import Any

from reqbench.protocols.pace.judges.wired import wired_package
from reqbench.protocols.pace.l1.callgraph import last_segment
from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.l2 import PointRequest

INCOMPLETE, INTEGRATION, TESTS = "incomplete_implementation", "integration_gap", "test_delivery_gap"

COVERED_AT = 0.85
PARTIAL_AT = 0.4

_TOKEN = re.compile(r"""[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|"[^"\n]*"|'[^'\n]*'|==|!=|<=|>=|[-+*/%<>]""")
_HEADER = re.compile(  # Python and JavaScript/TypeScript declaration headers and decorators
    r"^\s*(?:async\s+def|def|class)\s|^\s*@"
    r"|^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class)\s"
    r"|^\s*(?!(?:if|for|while|switch|catch|return)\b)(?:(?:static|async|get|set|public|private|protected)\s+)*"
    r"[A-Za-z_$][\w$]*\s*\([^()]*\)\s*(?::[^={]+)?\{\s*\}?\s*$"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*=\s*(?:async\s*)?(?:\([^()]*\)|[\w$]+)\s*(?::[^=]+)?=>"
)
_WORD = re.compile(r"[a-z]{4,}")
_STOP = {
    "must",
    "should",
    "with",
    "that",
    "this",
    "when",
    "from",
    "into",
    "than",
    "each",
    "have",
    "does",
    "their",
    "every",
    "only",
    "same",
    "which",
    "where",
    "will",
    "been",
    "also",
    "self",
    "none",
    "true",
    "false",
    "return",
    "value",
    "values",
}


def _subwords(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()
    return {w for w in _WORD.findall(spaced) if w not in _STOP}


def core_files(pkg: EvidencePackage) -> set[str]:
    """Files the point's own seeds reach: hinted paths and files of directly hinted declarations.

    The heuristic compares evidence there, not along the two-hop spread (which is context for a judge).
    Falls back to every file of the package when no seed is hit."""
    hinted = {h.split("::")[0] for h in pkg.seeds if "/" in h.split("::")[0]}
    files = {f for f in pkg.diffs if f in hinted or any(f.startswith(h.rstrip("/") + "/") for h in hinted)}
    files |= {i.file for i in pkg.changed if i.why == "in a hinted file or owner"}
    files |= {c.file for c in pkg.connections if c.origin == "candidate" and c.file in hinted}
    return files or set(pkg.diffs) | {i.file for i in pkg.changed}


def _added_lines(pkg: EvidencePackage, only: set[str] | None = None) -> list[tuple[str, str]]:
    """(file, line) of every line the candidate adds in the package's diffs, minus headers/docstrings."""
    out = []
    for file, diff in pkg.diffs.items():
        if only is not None and file not in only:
            continue
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
            if _HEADER.match(line) or not line.strip() or line.strip().startswith(("#", "//")):
                continue
            out.append((file, line))
    out += [
        (c.file, c.text)
        for c in pkg.connections
        if c.origin == "candidate" and (only is None or c.file in only)
    ]
    return out


def _tokens(lines: list[tuple[str, str]]) -> Counter[str]:
    return Counter(t for _, line in lines for t in _TOKEN.findall(line))


def _edge_keys(pkg: EvidencePackage | None) -> set[tuple[str, str]]:
    return {
        (c.kind, last_segment(c.target)) for c in (pkg.connections if pkg else []) if c.origin == "candidate"
    }


def _wiring(pkg: EvidencePackage | None) -> list[tuple[str, tuple[str, str]]]:
    """(edge text, edge key) of the reference's candidate-added non-call edges."""
    out = []
    for c in pkg.connections if pkg else []:
        if c.origin == "candidate" and c.kind != "call":
            out.append((c.text.strip().rstrip(","), (c.kind, last_segment(c.target))))
    return out


def _edge_of(line: str, wiring: list[tuple[str, tuple[str, str]]]) -> tuple[str, str] | None:
    """The reference edge a diff line states, if it is a wiring line (registry, import, export, ...)."""
    text = line.strip().rstrip(",")
    for edge_text, key in wiring:
        if not text:
            continue
        if edge_text and (edge_text in text or text in edge_text):
            return key
        if key[0] == "export" and text.strip("'\"") == key[1]:
            return key
    return None


def _recall(
    focus: list[tuple[str, str]],
    cand_tokens: Counter[str],
    wiring: list[tuple[str, tuple[str, str]]],
    cand_edges: set[tuple[str, str]],
) -> tuple[float, int]:
    """Share of the focus lines' tokens the candidate shows. Wiring lines count only when the candidate
    has the same edge (kind and target) — the names on a registry line exist elsewhere, the edge may not."""
    body: Counter[str] = Counter()
    matched = total = 0
    for _f, line in focus:
        n = len(_TOKEN.findall(line))
        key = _edge_of(line, wiring)
        if key is None:
            body.update(_TOKEN.findall(line))
            continue
        total += n
        matched += n if key in cand_edges else 0
    wiring_total, wiring_matched = total, matched
    total += sum(body.values())
    matched += sum(min(n, cand_tokens[t]) for t, n in body.items())
    recall = matched / total if total else 0.0
    if wiring_total and wiring_matched < wiring_total and wiring_total * 5 >= total:
        recall = min(recall, COVERED_AT - 0.01 if wiring_matched else PARTIAL_AT - 0.01)
    return recall, total


class TokenOverlapJudge:
    """Reference-similarity heuristic judge (see module docstring). Needs the reference packages."""

    judge_id = "token-overlap/v1"

    def __init__(self, reference: Mapping[str, EvidencePackage]) -> None:
        self.reference = reference

    def judge_point(self, request: PointRequest) -> dict[str, Any]:
        ref_pkg = self.reference.get(request.point_id)
        cand_pkg = request.package
        # only code each side wires in counts (`wired.wired_package`): dead or unreached code adds nothing
        # unwired code still explains a loss as an integration gap ("behaviour present but not wired")
        unwired_tokens = _tokens(_added_lines(cand_pkg)) if cand_pkg else Counter()
        ref_pkg = wired_package(ref_pkg, request.kind) if ref_pkg else None
        cand_pkg = wired_package(cand_pkg, request.kind) if cand_pkg else None
        ref_lines = _added_lines(ref_pkg, core_files(ref_pkg)) if ref_pkg else []
        cand_lines = _added_lines(cand_pkg) if cand_pkg else []
        cand_tokens = _tokens(cand_lines)
        cite = (
            ", ".join(f"{i.file}::{i.qname}" for i in cand_pkg.changed[:4])
            if cand_pkg and cand_pkg.changed
            else "no candidate declaration relevant to this point"
        )
        wiring = _wiring(ref_pkg)
        cand_edges = _edge_keys(cand_pkg)
        entries = []
        for crit in request.criteria:
            focus = self._focus(crit["text"], ref_lines)
            recall, total = _recall(focus, cand_tokens, wiring, cand_edges)
            judgment = "covered" if recall >= COVERED_AT else "partial" if recall >= PARTIAL_AT else "missing"
            reasoning, gap = self._reason(crit, judgment, recall, total, focus, unwired_tokens, ref_pkg, cand_pkg)
            entries.append(
                {
                    "criterion_id": crit["criterion_id"],
                    "severity": crit["severity"],
                    "judgment": judgment,
                    "evidence": cite,
                    "reasoning": reasoning,
                    "gaps": {gap: True} if gap else {},
                }
            )
        return {"evidence_checklist": entries, "missing_evidence": []}

    @staticmethod
    def _focus(text: str, ref_lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
        words = _subwords(text)
        focus = [fl for fl in ref_lines if _subwords(fl[1]) & words]
        return focus if sum(len(_TOKEN.findall(f[1])) for f in focus) >= 5 else ref_lines

    @staticmethod
    def _reason(
        crit: dict[str, Any],
        judgment: str,
        recall: float,
        total: int,
        focus: list[tuple[str, str]],
        cand_tokens: Counter[str],
        ref: EvidencePackage | None,
        cand: EvidencePackage | None,
    ) -> tuple[str, str | None]:
        """Reasoning, and the symptom flag (`models.Gaps` field) the missing tokens show (`cand_tokens`: every
        token the candidate added, wired or not, so unwired behaviour is diagnosed, never credited).

        Integration gap when the criterion's reference evidence is mostly wiring (registry, import,
        export, assignment, configuration edges), or when the behaviour is present but its wiring is
        not; test-delivery gap when the reference evidence lives in test files; otherwise incomplete.
        """
        head = f"heuristic: {recall:.0%} of {total} reference evidence tokens for this criterion observed"
        if crit.get("polarity") == "forbid":
            head += "; prohibition taken as held only within a delivered scope"
        if judgment == "covered":
            return head, None
        if total == 0:
            return head + "; the reference gives no localisable evidence", INCOMPLETE
        if cand is None or not (cand.changed or cand.diffs):
            return head + "; no candidate change reaches this point", INCOMPLETE
        wiring = [c for c in (ref.connections if ref else []) if c.origin == "candidate" and c.kind != "call"]
        wiring_texts = {c.text.strip() for c in wiring}
        cand_edges = {(c.kind, c.target) for c in cand.connections if c.origin == "candidate"}
        lost = sorted({(c.kind, c.target) for c in wiring} - cand_edges)
        shown = ", ".join(f"{k} -> {t}" for k, t in lost[:3])
        in_wiring = sum(1 for _, line in focus if line.strip() in wiring_texts)
        if lost and in_wiring * 2 >= len(focus):
            return head + f"; expected registration/wiring not observed ({shown})", INTEGRATION
        body = _tokens([fl for fl in focus if fl[1].strip() not in wiring_texts])
        body_total = sum(body.values())
        body_recall = sum(min(n, cand_tokens[t]) for t, n in body.items()) / body_total if body_total else 0.0
        if lost and body_recall >= PARTIAL_AT:
            return head + f"; behaviour present but not wired ({shown})", INTEGRATION
        if all("test" in f.rsplit("/", 1)[-1] for f, _ in focus):
            return head + "; the expected tests are not delivered", TESTS
        return head + "; required behaviour only partly present", INCOMPLETE
