"""Validation rules of a takeover project, one function per rule (paper A.1, B.2; FORMAT.md (a), (b), (d)).

`check_all` first checks the shape of the three files (pydantic models), then runs every rule in
`RULES` (project rules here, event rules in `event_rules.py`, target rules in `target_rules.py`) on the
typed project and finally replays each requirement (`replay.py`) to catch the one
state-dependent rule (removing an attribute key that cannot exist). All problems are reported at once,
each naming file, project, requirement, event (or target) and the rule code; the README table
"takeover: validation rules" lists the codes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.annotation.event_rules import EVENT_RULES
from reqbench.protocols.takeover.annotation.models import (
    ANNOTATION_VERSION,
    AnnotationModel,
    NormalizedProjectModel,
    SelectedTargetsModel,
)
from reqbench.protocols.takeover.annotation.problems import Problem, all_events, event_problem
from reqbench.protocols.takeover.annotation.project import Project, build_project, id_key
from reqbench.protocols.takeover.annotation.replay import replay_requirement
from reqbench.protocols.takeover.annotation.target_rules import TARGET_RULES

__all__ = ["Problem", "RULES", "check_all", "check_shape"]


# --- project-level rules ---------------------------------------------------------------------------


def rule_annotation_version(project: Project) -> Iterable[Problem]:
    """P01: the annotation must be Stage-1 v0.6."""
    if project.annotation_version != ANNOTATION_VERSION:
        yield Problem(
            "P01", f"annotation_version is {project.annotation_version!r}, expected {ANNOTATION_VERSION!r}"
        )


def rule_unique_message_ids(project: Project) -> Iterable[Problem]:
    """P03: message ids are unique in the catalog (identity str(id))."""
    for key, n in Counter(id_key(m["message_id"]) for m in project.messages).items():
        if n > 1:
            yield Problem("P03", f"message id {key!r} occurs {n} times in the catalog")


def rule_unique_requirement_ids(project: Project) -> Iterable[Problem]:
    """P05: requirement ids are unique."""
    for rid, n in Counter(r.requirement_id for r in project.requirements).items():
        if n > 1:
            yield Problem("P05", f"duplicate requirement_id (occurs {n} times)", requirement=rid)


def rule_known_family(project: Project) -> Iterable[Problem]:
    """P04: a requirement's family_id is null or declared in requirement_families."""
    declared = {f.get("family_id") for f in project.families}
    for req in project.requirements:
        if req.family_id is not None and req.family_id not in declared:
            yield Problem(
                "P04",
                f"family_id {req.family_id!r} is not declared in requirement_families",
                requirement=req.requirement_id,
            )


def rule_unique_event_ids(project: Project) -> Iterable[Problem]:
    """P06: event ids are unique across the whole project."""
    counts = Counter(ev.event_id for ev in all_events(project))
    for ev in all_events(project):
        if counts[ev.event_id] > 1:
            yield event_problem(
                "P06", ev, f"duplicate event_id (occurs {counts[ev.event_id]} times in the project)"
            )


PROJECT_RULES: list[Callable[[Project], Iterable[Problem]]] = [
    rule_annotation_version,
    rule_unique_message_ids,
    rule_unique_requirement_ids,
    rule_known_family,
    rule_unique_event_ids,
]
RULES = [*PROJECT_RULES, *EVENT_RULES]


# --- shape -----------------------------------------------------------------------------------------


def _name_loc(raw: Any, loc: tuple[Any, ...]) -> tuple[str | None, str | None, str]:
    """(requirement, event, remaining path) for a pydantic error location inside the annotation."""
    rid = eid = None
    rest = list(loc)
    if len(loc) >= 2 and loc[0] == "requirements" and isinstance(loc[1], int):
        try:
            req = raw["requirements"][loc[1]]
            rid = req.get("requirement_id")
            rest = list(loc[2:])
            if len(loc) >= 4 and loc[2] == "events" and isinstance(loc[3], int):
                eid = req["events"][loc[3]].get("event_id")
                rest = list(loc[4:])
        except (KeyError, IndexError, TypeError, AttributeError):
            pass
    return rid, eid, ".".join(str(p) for p in rest) or "(root)"


def check_shape(model: type[BaseModel], raw: Any, file: str, project: str) -> list[Problem]:
    """S01: the file has the documented shape (types, required keys, no unknown event keys)."""
    try:
        model.model_validate(raw)
        return []
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            rid, eid, path = _name_loc(raw, tuple(err["loc"]))
            out.append(
                Problem(
                    "S01", f"{path}: {err['msg']}", file=file, project=project, requirement=rid, event=eid
                )
            )
        return out


def check_project_ids(
    normalized: dict[str, Any], annotation: dict[str, Any], targets: dict[str, Any] | None
) -> Iterable[Problem]:
    """P02: the catalog, the annotation and the targets name the same project."""
    pid = str(normalized.get("project_id"))
    if str(annotation.get("project", {}).get("project_id")) != pid:
        yield Problem(
            "P02",
            f"annotation project_id {annotation['project'].get('project_id')!r} differs "
            f"from the catalog's {pid!r}",
        )
    if targets is not None and str(targets.get("project_id")) != pid:
        yield Problem(
            "P02", f"selected targets project_id {targets.get('project_id')!r} differs from {pid!r}"
        )


def _file_of(code: str) -> str:
    """Which input file a rule is about: targets (T*), the catalog (P03) or the annotation."""
    return "targets" if code.startswith("T") else "normalized" if code == "P03" else "annotation"


def check_all(
    normalized: Any,
    annotation: Any,
    targets: Any,
    *,
    file: str = "project",
    names: dict[str, str] | None = None,
) -> tuple[Project | None, list[Problem]]:
    """All problems of the three files; the project is returned only when there are none.

    `names` maps "normalized" / "annotation" / "targets" to the file names used in messages (else `file`).
    """
    names = {k: (names or {}).get(k, file) for k in ("normalized", "annotation", "targets")}
    pid = str(normalized.get("project_id", "?")) if isinstance(normalized, dict) else "?"
    problems = check_shape(NormalizedProjectModel, normalized, names["normalized"], pid)
    problems += check_shape(AnnotationModel, annotation, names["annotation"], pid)
    if targets is not None:
        problems += check_shape(SelectedTargetsModel, targets, names["targets"], pid)
    if problems:
        return None, problems
    found = list(check_project_ids(normalized, annotation, targets))
    project = build_project(normalized, annotation, targets)
    for rule in [*RULES, *TARGET_RULES]:
        found.extend(rule(project))
    # replay every atom whose events passed the static rules: rule E19 depends on the replayed state
    flagged = {p.requirement for p in found}
    for req in (r for r in project.requirements if r.requirement_id not in flagged):
        try:
            replay_requirement(project, req)
        except InputError as exc:
            code = getattr(exc, "code", "E19")
            found.append(Problem(code, exc.rule, requirement=req.requirement_id, event=exc.item))
    problems = [
        Problem(p.code, p.text, names[_file_of(p.code)], pid, p.requirement, p.event, p.target) for p in found
    ]
    return (None if problems else project), problems
