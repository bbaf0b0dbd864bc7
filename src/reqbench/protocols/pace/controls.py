"""Positive and negative controls (paper §4.4 Table 4, appendix "Controls").

With PRD, base, criteria and weights fixed, only the candidate changes:

* ``reference``        the accepted reference patch (positive control);
* ``empty``            no change;
* ``unrelated``        a same-repository edit outside the requirement (``controls/unrelated.patch`` when the
                       case ships one, otherwise a generated helper function in a file no point hints at
                       and the reference does not touch);
* ``cross_case``       other cases' reference patches — scored only when they apply to this exact base,
                       otherwise excluded (null), never scored zero;
* ``identifier_only``  generated from the reference: the new declarations at their locations, every body
                       emptied, nothing else (names and locations without behaviour). Besides its case
                       score, it is scored the paper's way: pooled over the behavioural points it targets
                       (`identifier_only_targets`, `pooled_identifier_only`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from reqbench.protocols.pace import repo
from reqbench.protocols.pace.case import Case
from reqbench.protocols.pace.l1.callgraph import iter_files
from reqbench.protocols.pace.l1.languages import Decl, facts_for, is_source
from reqbench.protocols.pace.score import Scorer

BEHAVIOURAL_KINDS = ("behavior", "integration", "registration")
"""Point kinds the identifier-only control targets (the paper says "behavioral criteria" without a list;
structure, configuration, documentation and test points are not behaviour a stub could fake)."""

_PHI = {"Covered": 1.0, "Partial": 0.5, "Missing": 0.0}

CONTROL_NAMES = ("reference", "empty", "unrelated", "cross_case", "identifier_only")

_UNRELATED_FN = '''

def _maintenance_count_truthy(values):
    """Count the truthy entries of an iterable (maintenance helper, unrelated to any requirement)."""
    total = 0
    for value in values:
        if value:
            total += 1
    return total
'''


def unrelated_patch(case: Case, base: Path) -> str:
    """The case's own unrelated patch, or a generated edit in a file outside every point's scope."""
    own = case.dir / "controls" / "unrelated.patch"
    if own.is_file():
        return own.read_text(encoding="utf-8")
    avoid = set(repo.patch_paths(case.reference_patch))
    for p in case.points:
        avoid.update(h.split("::")[0] for h in p.retrieval_hints)

    def peripheral(rel: str) -> bool:
        return rel.startswith(("docs/", "doc/", "examples/")) or rel.rsplit("/", 1)[-1] in (
            "setup.py",
            "conftest.py",
            "conf.py",
        )

    for rel in sorted(iter_files(base), key=lambda r: (peripheral(r), r)):
        name = rel.rsplit("/", 1)[-1]
        if (
            rel.endswith(".py")
            and rel not in avoid
            and not name.startswith("test")
            and name != "__init__.py"
            and not any(rel.startswith(a.rstrip("/") + "/") for a in avoid)
        ):
            old = (base / rel).read_text(encoding="utf-8")
            return repo.text_patch({rel: (old, old.rstrip("\n") + "\n" + _UNRELATED_FN)})
    return ""


def _indent(lines: list[str], line_no: int) -> str:
    line = lines[line_no - 1] if 0 < line_no <= len(lines) else ""
    return line[: len(line) - len(line.lstrip())]


def _stub(d: Decl, lines: list[str], methods: list[Decl]) -> list[str]:
    ind = _indent(lines, d.start_line)
    head = [ind + h if i == 0 else h for i, h in enumerate(d.header.splitlines())]
    if not d.file.endswith(".py"):  # JavaScript/TypeScript: an empty block (a class keeps its members' stubs)
        if d.kind != "class":
            return [*head[:-1], head[-1] + " {}"]
        return [*head[:-1], head[-1] + " {", *(x for m in methods for x in _stub(m, lines, [])), ind + "}"]
    if d.kind != "class":
        return [*head, ind + "    pass"]
    out = list(head)
    for m in methods:
        out += [""] + _stub(m, lines, [])
    return out if methods else [*out, ind + "    pass"]


def identifier_only_patch(case: Case, base: Path, reference_tree: Path) -> str:
    """Declarations introduced by the reference, kept at their locations with empty bodies; nothing else."""
    files: dict[str, tuple[str | None, str]] = {}
    for rel in repo.patch_paths(case.reference_patch):
        if not is_source(rel) or not (reference_tree / rel).is_file():
            continue
        new_text = (reference_tree / rel).read_text(encoding="utf-8")
        new_lines = new_text.splitlines()
        ref = facts_for(rel, new_text)
        old_text = (base / rel).read_text(encoding="utf-8") if (base / rel).is_file() else None
        old = facts_for(rel, old_text) if old_text is not None else None
        old_q = {d.qname: d for d in (old.decls if old else [])}
        owned: dict[str, list[Decl]] = {}
        for d in ref.decls:
            if d.owner:
                owned.setdefault(d.owner, []).append(d)
        inserts: dict[int, list[str]] = {}
        anchor = 0
        for d in ref.decls:
            if d.qname in old_q:
                if d.owner is None:
                    anchor = old_q[d.qname].end_line
                continue
            parent_new = d.owner is not None and d.owner not in old_q
            if parent_new or (d.owner and "." in d.owner):
                continue  # emitted with its new class
            if d.owner is None:
                where = anchor if old_text is not None else 10**9
                inserts.setdefault(where, []).extend(["", "", *_stub(d, new_lines, owned.get(d.qname, []))])
            else:  # a new member of an existing class: Python after its last line, braces before the "}"
                where = old_q[d.owner].end_line - (0 if rel.endswith(".py") else 1)
                inserts.setdefault(where, []).extend(["", *_stub(d, new_lines, [])])
        base_lines = (old_text or "").splitlines()
        out: list[str] = []
        for i in range(len(base_lines) + 1):
            if i > 0:
                out.append(base_lines[i - 1])
            out.extend(inserts.get(i, []))
        out.extend(inserts.get(10**9, []))
        text = "\n".join(out).lstrip("\n") + "\n" if out else ""
        files[rel] = (old_text, text)
    return repo.text_patch(files)


def _declared(patch: str) -> tuple[set[str], set[str]]:
    """(files, declared names) of a patch's added `def`/`class` lines."""
    names = set(re.findall(r"^\+\s*(?:async\s+def|def|class)\s+(\w+)", patch, flags=re.M))
    names |= set(re.findall(r"^\+\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?"
                            r"(?:function\*?|class|const|let|var)\s+([\w$]+)", patch, flags=re.M))
    return set(repo.patch_paths(patch)), names


def identifier_only_targets(case: Case, patch: str, kinds: tuple[str, ...] = BEHAVIOURAL_KINDS) -> list[str]:
    """Points the identifier-only patch targets: a behavioural kind, and a retrieval hint naming a file
    the patch touches or a declaration it adds (`path`, `path::Owner.name` or bare `Owner.name`)."""
    files, names = _declared(patch)
    out = []
    for p in case.points:
        if p.kind not in kinds:
            continue
        for hint in p.retrieval_hints:
            if "::" in hint:
                path, _, sym = hint.partition("::")
            elif "/" in hint or hint.endswith((".py", ".js", ".ts")):
                path, sym = hint, ""
            else:
                path, sym = "", hint
            if (path and path in files) or (sym and sym.rsplit(".", 1)[-1] in names):
                out.append(p.id)
                break
    return out


def pooled_identifier_only(controls: list[dict[str, Any]]) -> dict[str, Any]:
    """Identifier-only control pooled over the targeted behavioural points of every case.

    Paper appendix "Controls for Reference Grounded Contract Validation": the frozen identifier-only
    control "targets 54 behavioral criteria and returns 51 Missing, three Partial, and no Covered. With
    frozen weights summing to 109.105 and Partial weights summing to 8.8, its normalized score is
    100 x (0.5 x 8.8)/109.105 = 4.03. This score summarizes the constructed control criteria, rather than
    a mean over complete cases." So: 100 * sum(w phi) / sum(w) over the targeted points of all cases
    together. An Unresolved targeted point blocks the pooled score (None), as it blocks a case score.
    `controls` are `run_controls` results with details.
    """
    weights: list[float] = []
    credit = 0.0
    counts = {"Covered": 0, "Partial": 0, "Missing": 0, "Unresolved": 0}
    for c in controls:
        t = c["details"]["identifier_only"]["targets"]
        for pid, w in t["weights"].items():
            v = t["verdicts"][pid]
            counts[v] += 1
            weights.append(w)
            credit += w * (_PHI.get(v, 0.0))
    total = sum(weights)
    score = None if counts["Unresolved"] or not total else 100.0 * credit / total
    return {"score": score, "targeted_points": len(weights), "weight": total, "verdicts": counts,
            "cases": len(controls)}


def run_controls(scorer: Scorer, others: list[Case], judge: str = "") -> dict[str, Any]:
    """Score every control; returns the five scores (None where excluded) plus per-control details."""
    case = scorer.case
    base = scorer.base
    from reqbench.core import tempdirs

    with tempdirs.folder("pace-ctl") as tmp:
        ref_tree = repo.candidate_tree(base, case.reference_patch, Path(tmp) / "ref")
        ident = identifier_only_patch(case, base, ref_tree)
    patches = {
        "reference": case.reference_patch,
        "empty": "",
        "unrelated": unrelated_patch(case, base),
        "identifier_only": ident,
    }
    judge_obj = scorer.judge(judge)
    details: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for name, patch in patches.items():
        res = scorer.score(patch, judge_obj)
        out[name] = res.score
        details[name] = {
            "score": res.score,
            "complete": res.complete,
            "verdicts": {k: v.value for k, v in res.verdicts.items()},
            "patch_sha256": res.patch_sha256,
            "patch_lines": patch.count("\n"),
        }
        if name == "identifier_only":
            targets = identifier_only_targets(case, patch)
            details[name]["targets"] = {
                "weights": {p: case.weights[p] for p in targets},
                "verdicts": {p: res.verdicts[p].value for p in targets},
            }
    cross = []
    for other in others:
        if other.id == case.id:
            continue
        if not repo.patch_applies(base, other.reference_patch):
            cross.append({"from": other.id, "applies": False, "score": None})
            continue
        res = scorer.score(other.reference_patch, judge_obj)
        cross.append({"from": other.id, "applies": True, "score": res.score})
    scored = [float(c["score"]) for c in cross if isinstance(c["score"], int | float)]
    out["cross_case"] = sum(scored) / len(scored) if scored else None
    details["cross_case"] = cross
    pooled = pooled_identifier_only([{"details": details}])
    return {
        **{k: out[k] for k in CONTROL_NAMES},
        "identifier_only_targeted": pooled["score"],
        "case_id": case.id,
        "judge": judge_obj.judge_id,
        "details": details,
    }
