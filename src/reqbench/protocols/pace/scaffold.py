"""`reqbench pace scaffold NAME==A NAME==B --out DIR`: a PACE case skeleton from two releases of a PyPI project.

What a case author would otherwise assemble by hand from the two sdists:

* ``base: pypi:NAME==A`` with the sdist's sha256, and ``reference_patch:`` the maintainers' own change
  as a pinned ``pypi-diff:NAME==A..B#paths=...&sha256=A,B`` (both hashes read from the fetched sdists);
* draft Code Points, one per declaration the change adds, changes or removes in a source file (methods
  of a new class fold into the class), one registration point per newly exported name (with an
  ``exported`` L0 contract), and one point per changed non-source file (documentation, tests,
  configuration) -- each with its retrieval hint, a placeholder criterion marked ``TODO`` and a default
  weight;
* a ``prd.md`` outline.

The drafts are for a human to edit: merge, split, reword the criteria as product requirements, set
provenance and weights, write the PRD, then `reqbench pace validate` and `reqbench pace freeze`. The
skeleton is deliberately not frozen.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text
from reqbench.core.workspace import RepoSource, pypi_diff
from reqbench.protocols.pace.l1.languages import Decl, facts_for, is_source
from reqbench.protocols.pace.l1.package import is_test_path

DRAFT_WEIGHT = 5.0


@dataclass(frozen=True)
class Scaffold:
    """What `scaffold` wrote: the folder, the change's size and the number of draft points."""

    out: Path
    files: int
    added: int
    removed: int
    points: int


def _release(requirement: str) -> tuple[Path, str]:
    source = RepoSource.parse(f"pypi:{requirement}").resolved()
    return source.baseline(), str(source.sha256)


def _read(root: Path, rel: str) -> str | None:
    path = root / rel
    if not path.is_file() or path.is_symlink():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _decl_changes(rel: str, old: str | None, new: str | None) -> list[tuple[str, Decl]]:
    """(added | changed | removed, declaration) for one source file; members of a new class fold in."""
    old_decls = {d.qname: d for d in (facts_for(rel, old).decls if old is not None else [])}
    new_decls = {d.qname: d for d in (facts_for(rel, new).decls if new is not None else [])}
    out: list[tuple[str, Decl]] = []
    for q, d in new_decls.items():
        if d.owner and d.owner not in old_decls:
            continue
        if q not in old_decls:
            out.append(("added", d))
        elif old_decls[q].text != d.text:
            out.append(("changed", d))
    out += [("removed", d) for q, d in old_decls.items()
            if q not in new_decls and not (d.owner and d.owner not in new_decls)]
    return out


def _point(n: int, kind: str, description: str, hint: str, criterion: str,
           contract: dict[str, Any] | None = None) -> dict[str, Any]:
    pid = f"CP{n:02d}"
    point: dict[str, Any] = {
        "id": pid, "kind": kind, "description": description, "provenance": "derived",
        "weight": DRAFT_WEIGHT, "retrieval_hints": [hint],
    }
    if contract:
        point["contract"] = contract
    point["criteria"] = [{"criterion_id": f"{pid}.c1", "text": f"TODO: {criterion}", "severity": "hard"}]
    return point


def draft_points(patch: str, old_root: Path, new_root: Path) -> list[dict[str, Any]]:
    """Draft Code Points for every change in `patch` (see the module docstring)."""
    files, _, _ = pypi_diff.touched(patch)
    points: list[dict[str, Any]] = []
    for rel in files:
        old, new = _read(old_root, rel), _read(new_root, rel)
        if is_test_path(rel) or not is_source(rel):
            kind = "test" if is_test_path(rel) else "documentation" if rel.endswith(
                (".rst", ".md", ".txt")) else "configuration"
            what = "removed" if new is None else "added" if old is None else "changed"
            points.append(_point(len(points) + 1, kind, f"{rel} {what}", rel,
                                 f"state what {rel} must contain or check after the change"))
            continue
        for change, d in _decl_changes(rel, old, new):
            kind = "structure" if change == "removed" else "behavior"
            contract = ({"strategy": "symbol_exists", "target": f"{rel}::{d.qname}"}
                        if change == "added" and d.owner is None else None)
            points.append(_point(len(points) + 1, kind, f"{d.kind} {d.qname} {change} in {rel}",
                                 f"{rel}::{d.qname}",
                                 f"state the required behaviour of {d.qname} ({change})", contract))
        old_all = set((facts_for(rel, old).all_names or []) if old is not None else [])
        new_all = (facts_for(rel, new).all_names or []) if new is not None else []
        for name in [n for n in new_all if n not in old_all]:
            points.append(_point(len(points) + 1, "registration", f"{name} exported from {rel}", rel,
                                 f"{name} is listed in __all__ of {rel}",
                                 {"strategy": "exported", "target": rel, "name": name}))
    return points


_PRD = """# PRD: {title}

## Goal
TODO: the problem this change solves for users of {name}, in product terms.

## Scope
Work from {name} {old}. TODO: what is in and out of scope.

## Functional requirements
1. TODO

## Integration requirements
- TODO: where the feature must be wired in (exports, registries, decorators, configuration).

## Documentation and tests
- TODO

## Acceptance criteria
All of the above hold; the existing test suite keeps passing.
"""


def scaffold(old: str, new: str, out: Path, paths: tuple[str, ...] = (),
             environment: dict[str, Any] | None = None) -> Scaffold:
    """Write a case skeleton for the change from release `old` to `new` (``NAME==VERSION`` each), with
    `environment` (a validated block) as the case's task environment."""
    name_a, sep_a, ver_a = old.partition("==")
    name_b, sep_b, ver_b = new.partition("==")
    if not (sep_a and sep_b) or name_a.lower() != name_b.lower():
        raise InputError("expected two releases of one project: NAME==A NAME==B", item=f"{old} {new}")
    out = Path(out)
    if (out / "case.yaml").exists():
        raise InputError("refusing to overwrite an existing case", file=str(out / "case.yaml"))
    old_root, sha_a = _release(old)
    new_root, sha_b = _release(new)
    diff = pypi_diff.PypiDiff(name_a, ver_a, ver_b, tuple(paths), (sha_a, sha_b))
    patch = RepoSource.parse(diff.spec).change_patch()
    files, added, removed = pypi_diff.touched(patch)
    points = draft_points(patch, old_root, new_root)
    case: dict[str, Any] = {
        "protocol": "pace",
        "id": f"{name_a.lower()}-{ver_b}".replace(".", "-").replace("_", "-"),
        "title": f"TODO: the feature {name_a} {ver_b} delivers, as a product requirement",
        "base": f"pypi:{old}",
        "base_sha256": sha_a,
        "prd": "prd.md",
        "reference_patch": diff.spec,
        "language": "python",
        "code_points": points,
    }
    if environment:
        case["environment"] = environment
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "case.yaml", yaml.safe_dump(case, sort_keys=False, width=110, allow_unicode=True))
    atomic_write_text(out / "prd.md", _PRD.format(title=case["title"], name=name_a, old=ver_a))
    return Scaffold(out, len(files), added, removed, len(points))
