"""Loading a takeover project folder: read its files, validate every rule, build the `Project`.

`load_project` never returns a project that breaks a validation rule: it raises `InputError` naming the
first problem (`validate_project` lists them all). Kept apart from `project` (the data model and file
reading) so that validation, which builds on the model, and loading, which builds on validation, form a
pipeline without an import cycle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.annotation.project import Project, ProjectFiles, file_names, read_raw, source_map
from reqbench.protocols.takeover.annotation.validation import check_all


def load_project_data(
    normalized: dict[str, Any],
    annotation: dict[str, Any],
    targets: dict[str, Any] | None = None,
    *,
    name: str = "project",
    files: ProjectFiles | None = None,
) -> Project:
    """Validate in-memory files and build the project; `InputError` on the first problem."""
    project, problems = check_all(
        normalized, annotation, targets, file=name, names=file_names(files) if files else None
    )
    if problems:
        more = (
            f" (and {len(problems) - 1} more; `reqbench takeover validate` lists all)"
            if len(problems) > 1
            else ""
        )
        raise InputError(str(problems[0]) + more)
    assert project is not None
    if files is not None:
        project.source_files = source_map(files)
    return project


def load_project(path: Path | str) -> Project:
    """Load and validate a project folder (or release layout). Raises `InputError` on any problem."""
    files, normalized, annotation, targets = read_raw(Path(path))
    return load_project_data(normalized, annotation, targets, files=files)


def validate_project(path: Path | str) -> list[str]:
    """Every problem of a project folder, one sentence each; [] when valid."""
    try:
        files, normalized, annotation, targets = read_raw(Path(path))
    except InputError as exc:
        return [str(exc)]
    _, problems = check_all(normalized, annotation, targets, names=file_names(files))
    return [str(p) for p in problems]
