"""A takeover project's data model and files: locate its three files, read them, build typed records.

A project folder holds ``normalized_project.json``, ``annotation.json`` (the Stage-1 annotation) and
``selected_target_times.json``. The original release layout (``outputs_new/stage1_runs/<pid>/...``,
``outputs_new/stage1_annotations/<pid>_stage1_annotation.json``,
``outputs_new/stage2/<pid>/target_time_selection/selected_target_times.json``) is accepted too.

Validation (`validation`) and loading (`annotation.loading.load_project`, which never returns a project that breaks
a rule) build on this module.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.bundled import as_spec
from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json

NORMALIZED_NAME = "normalized_project.json"
ANNOTATION_NAME = "annotation.json"
TARGETS_NAME = "selected_target_times.json"


def id_key(value: Any) -> str:
    """Identity of a message id: ``str(id)`` (FORMAT.md §0; ints and strings may both occur)."""
    return str(value)


@dataclass(frozen=True)
class Event:
    """One annotated change event, with its payload exactly as annotated (values not copied)."""

    event_id: str
    requirement_id: str
    index: int  # position in the requirement's event array
    event_type: str
    source_message_id: Any
    source_speaker: str
    source_text: str
    supporting_message_ids: list[Any]
    value_updates: dict[str, Any] | None
    value_removals: list[Any] | None
    scope_updates: dict[str, Any] | None
    ambiguity: dict[str, Any] | None
    execution: dict[str, Any] | None
    resolves_ambiguity_event_ids: list[Any] | None


@dataclass(frozen=True)
class Requirement:
    requirement_id: str
    title: str
    family_id: str | None
    events: list[Event]


@dataclass
class Project:
    """A loaded project: catalog, requirements in graph order, selected targets (raw rows)."""

    project_id: str
    project_title: Any
    messages: list[dict[str, Any]]
    requirements: list[Requirement]
    families: list[dict[str, Any]]
    selected_targets: list[dict[str, Any]]
    annotation_version: str
    annotation_title: Any = None
    source_files: dict[str, Path] = field(default_factory=dict)
    raw_normalized: dict[str, Any] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.positions:
            self.positions = {id_key(m["message_id"]): i for i, m in enumerate(self.messages)}

    def position(self, message_id: Any) -> int:
        """0-based position P(m) in the catalog (never numeric id order)."""
        try:
            return self.positions[id_key(message_id)]
        except KeyError:
            raise InputError(f"unknown message id {message_id!r}", file=self.project_id) from None

    def message(self, message_id: Any) -> dict[str, Any]:
        return self.messages[self.position(message_id)]

    def requirement(self, requirement_id: str) -> Requirement:
        for req in self.requirements:
            if req.requirement_id == requirement_id:
                return req
        raise InputError(f"unknown requirement {requirement_id!r}", file=self.project_id)


@dataclass(frozen=True)
class ProjectFiles:
    """Where a project's three files are."""

    normalized: Path
    annotation: Path
    targets: Path | None


def locate_files(path: Path) -> ProjectFiles:
    """Find the three files in a project folder or in the original release layout."""
    path = Path(path)
    if not path.is_dir():
        raise InputError("project folder does not exist", file=str(path))
    if (path / NORMALIZED_NAME).is_file() and (path / ANNOTATION_NAME).is_file():
        targets = path / TARGETS_NAME
        return ProjectFiles(
            path / NORMALIZED_NAME, path / ANNOTATION_NAME, targets if targets.is_file() else None
        )
    root = path if path.name == "outputs_new" else path / "outputs_new"
    normalized = sorted(root.glob(f"stage1_runs/*/{NORMALIZED_NAME}"))
    if len(normalized) != 1:
        inside = sorted(as_spec(p.parent) for p in path.glob(f"*/{NORMALIZED_NAME}"))
        hint = f" (did you mean {' or '.join(inside[:2])}?)" if inside else ""
        raise InputError(
            f"expected {NORMALIZED_NAME} + {ANNOTATION_NAME} (+ {TARGETS_NAME}), or exactly one "
            f"project in the release layout outputs_new/stage1_runs/<pid>/{hint}",
            file=str(path),
        )
    pid = normalized[0].parent.name
    annotation = root / "stage1_annotations" / f"{pid}_stage1_annotation.json"
    if not annotation.is_file():
        raise InputError("release layout without its Stage-1 annotation", file=str(annotation))
    targets = root / "stage2" / pid / "target_time_selection" / TARGETS_NAME
    return ProjectFiles(normalized[0], annotation, targets if targets.is_file() else None)


def _read(path: Path) -> Any:
    try:
        return read_json(path)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg} at line {exc.lineno})", file=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=str(path)) from None


def read_raw(path: Path) -> tuple[ProjectFiles, dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """The three files as parsed JSON (targets None when absent)."""
    files = locate_files(path)
    targets = _read(files.targets) if files.targets else None
    return files, _read(files.normalized), _read(files.annotation), targets


def _event(raw: dict[str, Any], requirement_id: str, index: int) -> Event:
    source = raw["source_message"]
    return Event(
        event_id=raw["event_id"],
        requirement_id=requirement_id,
        index=index,
        event_type=raw["event_type"],
        source_message_id=source["message_id"],
        source_speaker=source["speaker"],
        source_text=source["text"],
        supporting_message_ids=list(raw.get("supporting_message_ids") or []),
        value_updates=raw.get("value_updates"),
        value_removals=raw.get("value_removals"),
        scope_updates=raw.get("scope_updates"),
        ambiguity=raw.get("ambiguity"),
        execution=raw.get("execution"),
        resolves_ambiguity_event_ids=raw.get("resolves_ambiguity_event_ids"),
    )


def build_project(
    normalized: dict[str, Any],
    annotation: dict[str, Any],
    targets: dict[str, Any] | None,
    files: ProjectFiles | None = None,
) -> Project:
    """Typed records from structurally valid raw files (no semantic checks here)."""
    requirements = [
        Requirement(
            r["requirement_id"],
            r["title"],
            r.get("family_id"),
            [_event(e, r["requirement_id"], i) for i, e in enumerate(r.get("events") or [])],
        )
        for r in annotation["requirements"]
    ]
    return Project(
        project_id=str(normalized["project_id"]),
        project_title=normalized.get("project_title"),
        messages=list(normalized["messages"]),
        requirements=requirements,
        families=list(annotation.get("requirement_families") or []),
        selected_targets=list((targets or {}).get("selected_targets") or []),
        annotation_version=annotation.get("annotation_version", ""),
        annotation_title=annotation.get("project", {}).get("project_title"),
        source_files=source_map(files) if files else {},
        raw_normalized=copy.deepcopy(normalized),
    )


def source_map(files: ProjectFiles) -> dict[str, Path]:
    """Input files by role (recorded as source artifacts of a build)."""
    roles = (
        ("normalized_project", files.normalized),
        ("annotation", files.annotation),
        ("selected_target_times", files.targets),
    )
    return {role: path for role, path in roles if path is not None}


def file_names(files: ProjectFiles) -> dict[str, str]:
    return {
        "normalized": str(files.normalized),
        "annotation": str(files.annotation),
        "targets": str(files.targets),
    }
