"""Structural and semantic validation of a PACE case (`reqbench validate`, `reqbench pace validate`).

One sentence per problem, naming file, item and rule: unique point and criterion ids, positive finite
weights, hint and contract paths that exist in the base or are created by the reference patch, a
reference patch that applies to the exact base, a matching frozen hash, and — semantically — that L1
finds reference evidence for every point (a point the reference cannot evidence is mis-hinted).
"""

from __future__ import annotations

import math
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import InputError, ReqbenchError
from reqbench.core.workspace import pypi_diff
from reqbench.protocols.pace import repo
from reqbench.protocols.pace.case import CASE_FILE, Case, contract_hash, load_case, load_suite
from reqbench.protocols.pace.l0 import split_target


def validate_path(path: Path, deep: bool = True) -> list[str]:
    """Problems of a suite or a single case folder; [] when valid."""
    try:
        _suite, cases = load_suite(path)
    except InputError as exc:
        return [str(exc)]
    problems: list[str] = []
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            problems.append(f"{case.dir / CASE_FILE}: {case.id}: case id used twice in the suite")
        seen.add(case.id)
        problems += validate_case(case, deep)
    return problems


def validate_case(case: Case | Path, deep: bool = True) -> list[str]:
    if not isinstance(case, Case):
        try:
            case = load_case(case)
        except InputError as exc:
            return [str(exc)]
    file = str(case.dir / CASE_FILE)
    out: list[str] = []
    pids: set[str] = set()
    cids: set[str] = set()
    for p in case.points:
        if p.id in pids:
            out.append(f"{file}: {p.id}: point id is not unique")
        pids.add(p.id)
        if not math.isfinite(p.weight) or p.weight <= 0:
            out.append(f"{file}: {p.id}: weight must be a positive finite number")
        if not p.criteria:
            out.append(f"{file}: {p.id}: a Code Point needs at least one criterion")
        for c in p.criteria:
            if c.criterion_id in cids:
                out.append(f"{file}: {c.criterion_id}: criterion id is not unique in the case")
            cids.add(c.criterion_id)
    if not case.prd.strip():
        out.append(f"{file}: {case.spec.prd}: the PRD is empty")
    out += _reference_problems(case, file, deep)
    if case.spec.frozen_hash is None:
        out.append(f"{file}: frozen_hash: case is not frozen (run `reqbench pace freeze`)")
    elif case.spec.frozen_hash != contract_hash(case):
        out.append(f"{file}: frozen_hash: does not match the contract (edited after freezing)")
    if deep and not out:
        out += _against_base(case, file)
    return out


def _reference_problems(case: Case, file: str, deep: bool) -> list[str]:
    """A patch file must not be empty; a ``pypi-diff:`` reference must parse and pin both sdists
    (`sha256=A,B`: the frozen hash covers the spec, so the spec must fix the content) and, when the
    base is a ``pypi:`` release, start from that release. Fetching is left to the deep checks."""
    if not case.reference_is_upstream:
        if not case.reference_patch.strip():
            return [f"{file}: {case.spec.reference_patch}: the reference patch is empty"]
        return []
    try:
        diff = pypi_diff.parse(case.spec.reference_patch)
    except InputError as exc:
        return [f"{file}: reference_patch: {exc}"]
    out = []
    if diff.sha256 is None:
        out.append(f"{file}: reference_patch: a pypi-diff reference must pin both sdists (&sha256=A,B)")
    base = case.spec.base.strip()
    if base.startswith("pypi:") and base.split("#")[0].lower() != f"pypi:{diff.old_requirement}".lower():
        out.append(f"{file}: reference_patch: the upstream change starts from {diff.old_requirement}, "
                   f"but the base is {base}")
    if deep and not out:
        try:
            case.reference_patch  # noqa: B018 - fetch and cache the upstream change
        except InputError as exc:
            out.append(f"{file}: reference_patch: {exc}")
    return out


def _against_base(case: Case, file: str) -> list[str]:
    from reqbench.protocols.pace.score import Scorer

    scorer = Scorer(case, require_frozen=False)
    try:
        base = scorer.base
    except (ReqbenchError, OSError, ValueError) as exc:
        return [f"{file}: base: cannot materialise {case.spec.base!r} ({exc})"]
    out: list[str] = []
    created = set(repo.patch_paths(case.reference_patch))
    with tempdirs.folder("pace-val") as tmp:
        try:
            ref_tree = repo.candidate_tree(base, case.reference_patch, Path(tmp) / "ref")
        except repo.PatchApplyError as exc:
            return [f"{file}: {case.spec.reference_patch}: does not apply to the exact base ({exc})"]
        for p in case.points:
            targets = [(h, "retrieval hint") for h in p.retrieval_hints]
            if p.contract:
                targets.append((p.contract.target, "contract target"))
            for hint, what in targets:
                path, _sym = split_target(hint)
                looks_like_path = "/" in path or path.endswith(
                    (".py", ".toml", ".yaml", ".yml", ".rst", ".md")
                )
                if looks_like_path and not (
                    (base / path).exists() or (ref_tree / path).exists() or path in created
                ):
                    out.append(
                        f"{file}: {p.id}: {what} {hint!r} names a path that is neither in the base "
                        "nor created by the reference patch"
                    )
    if not out:
        for pid, pkg in scorer.reference_packages().items():
            if not (pkg.changed or pkg.diffs or pkg.connections):
                out.append(f"{file}: {pid}: L1 finds no reference evidence for this point (check its hints)")
    return out
