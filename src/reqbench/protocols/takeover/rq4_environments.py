"""RQ4 inputs: a target's code environment and its acceptance criteria (paper 6.1-6.2, B.3/C.3;
FORMAT.md (g.2)).

A takeover project may carry, next to its three files, one code environment per delivery target::

    code_environment/targets/<T###>_before_<message id>/
        manifest.json       the environment manifest (released Code Environment format: target_id,
                            before_message_id, target_event_ids, requirements_to_code, ...)
        criteria.json       the target's acceptance-criteria proposal (`CriteriaProposal`)
        repository/         the pre-request repository (a directory) -- or repository.zip

The release layout ``Code Environment/<project id>/targets/...`` is accepted too. A code environment
*matches* a target when its folder name, its manifest's ``target_id`` and ``before_message_id`` all name
that target. Only proposals whose ``downstream_disposition`` is ``PROCEED_TO_VALIDATOR_AUTHORING`` enter
the agent-judge registry (the released selection rule).
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json, sha256_file

PROCEED = "PROCEED_TO_VALIDATOR_AUTHORING"
DEFAULT_EVALUATION_COMMANDS = {
    "build": ["{python}", "scripts/build.py"],
    "regression": ["{python}", "scripts/check.py"],
}
"""The released registry's build and regression commands, relative to the repository root."""
TREE_IGNORED_DIRS = frozenset({"__pycache__", ".git", ".rq4-results"})
_DIR_NAME = re.compile(r"(T\d{3,})_before_(.+)")


class AcceptanceCriterion(BaseModel):
    """One acceptance criterion as the judge receives it (requirement/state ids are not part of it)."""

    model_config = ConfigDict(extra="ignore")
    criterion_id: str = Field(pattern=r"^AC\d{3}$", description="AC001, AC002, ... unique per target.")
    scope: str = Field(min_length=1, description="What part of the delivery the criterion covers.")
    statement: str = Field(min_length=1, description="The behaviour the delivered project must show.")
    observables: list[str] = Field(default_factory=list, description="How the behaviour can be observed.")
    negative_cases: list[str] = Field(
        default_factory=list, description="Plausible partial deliveries that must not pass."
    )


class CriteriaProposal(BaseModel):
    """``criteria.json`` of a code environment."""

    model_config = ConfigDict(extra="forbid")
    downstream_disposition: str = Field(
        description="PROCEED_TO_VALIDATOR_AUTHORING admits the target to the registry; anything else "
        "(e.g. SUBJECTIVE_REVIEW, NO_DETERMINISTIC_OBSERVABLE) keeps it out."
    )
    acceptance_criteria: list[AcceptanceCriterion] = Field(default_factory=list)
    evaluation_commands: dict[str, list[str]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_EVALUATION_COMMANDS.items()},
        description="build and regression argv; '{python}' stands for the running interpreter.",
    )
    criterion_checks: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Optional deterministic check per criterion id (argv, exit 0 PASS / 1 FAIL), used "
        "by the exact judge; criteria without one are UNSURE for that judge.",
    )


@dataclass
class CodeEnvironment:
    """One target's environment folder, read and checked (problems become readiness blockers)."""

    folder: Path
    target_suffix: str
    before_message_id: str
    manifest: dict[str, Any]
    proposal: CriteriaProposal | None
    repository: Path | None
    blockers: list[str] = field(default_factory=list)

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    @property
    def criteria_path(self) -> Path:
        return self.folder / "criteria.json"

    @property
    def included(self) -> bool:
        return self.proposal is not None and self.proposal.downstream_disposition == PROCEED


def tree_sha256(root: Path) -> str:
    """sha256 over sorted ``relpath NUL bytes NUL`` of every file, ignoring ``__pycache__``, ``.git``,
    ``.rq4-results`` and ``*.pyc`` (the released judge's repository-tree hash)."""
    h = hashlib.sha256()
    files = []
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if any(part in TREE_IGNORED_DIRS for part in rel.parts) or p.suffix == ".pyc" or not p.is_file():
            continue
        files.append((rel.as_posix(), p))
    for name, path in sorted(files):
        h.update(name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def archive_problems(archive: Path) -> list[str]:
    """Zip safety of a repository archive: no absolute or parent paths, no symlinks, no ``.git``, CRC ok."""
    problems = []
    try:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                parts = Path(info.filename).parts
                if info.filename.startswith(("/", "\\")) or ".." in parts:
                    problems.append(f"{archive.name}: unsafe path {info.filename!r}")
                if (info.external_attr >> 16) & 0o170000 == 0o120000:
                    problems.append(f"{archive.name}: symbolic link {info.filename!r}")
                if ".git" in parts:
                    problems.append(f"{archive.name}: contains .git ({info.filename!r})")
            bad = z.testzip()
            if bad is not None:
                problems.append(f"{archive.name}: CRC error in {bad!r}")
    except zipfile.BadZipFile as exc:
        problems.append(f"{archive.name}: not a zip archive ({exc})")
    return problems


def read_environment(folder: Path) -> CodeEnvironment:
    m = _DIR_NAME.fullmatch(folder.name)
    if m is None:
        raise InputError("code environment folder must be named T###_before_<message id>", file=str(folder))
    manifest = read_json(folder / "manifest.json")
    if not isinstance(manifest, dict):
        raise InputError("manifest.json must hold an object", file=str(folder / "manifest.json"))
    env = CodeEnvironment(folder, m.group(1), m.group(2), manifest, None, None)
    if (folder / "criteria.json").is_file():
        try:
            env.proposal = CriteriaProposal.model_validate(read_json(folder / "criteria.json"))
        except ValidationError as exc:
            raise InputError(f"invalid criteria proposal: {exc}", file=str(folder / "criteria.json")) from exc
    else:
        env.blockers.append("no criteria.json (acceptance criteria proposal)")
    if (folder / "repository").is_dir():
        env.repository = folder / "repository"
    elif (folder / "repository.zip").is_file():
        env.repository = folder / "repository.zip"
        env.blockers += archive_problems(env.repository)
    else:
        env.blockers.append("no pre-request repository (repository/ or repository.zip)")
    if str(manifest.get("before_message_id")) != env.before_message_id:
        env.blockers.append(
            f"manifest before_message_id {manifest.get('before_message_id')!r} differs from the folder name"
        )
    if env.proposal is not None:
        ids = [c.criterion_id for c in env.proposal.acceptance_criteria]
        if env.included and not ids:
            env.blockers.append("no acceptance criteria")
        if len(set(ids)) != len(ids):
            env.blockers.append("duplicate acceptance criterion ids")
        unknown = sorted(set(env.proposal.criterion_checks) - set(ids))
        if unknown:
            env.blockers.append(f"criterion_checks for unknown criteria {unknown}")
        missing = sorted({"build", "regression"} - set(env.proposal.evaluation_commands))
        if missing:
            env.blockers.append(f"evaluation_commands lack {missing}")
    return env


def default_environment_root(project_dir: Path, project_id: str | None = None) -> Path | None:
    """``<project>/code_environment/targets`` or the release's ``Code Environment/<pid>/targets``."""
    candidates = [project_dir / "code_environment" / "targets"]
    if project_id is not None:
        candidates.append(project_dir / "Code Environment" / project_id / "targets")
    candidates += sorted((project_dir / "Code Environment").glob("*/targets"))
    return next((c for c in candidates if c.is_dir()), None)


def read_environments(root: Path | None) -> list[CodeEnvironment]:
    """Every ``T###_before_*`` folder with a manifest under `root` (none when `root` is None)."""
    if root is None:
        return []
    if not root.is_dir():
        raise InputError("code environment folder does not exist", file=str(root))
    return [read_environment(p) for p in sorted(root.iterdir()) if (p / "manifest.json").is_file()]


def repository_identity(env: CodeEnvironment, base: Path) -> dict[str, Any]:
    """The registry's ``code_environment`` record (paths relative to `base` when below it)."""

    def rel(p: Path) -> str:
        try:
            return p.relative_to(base).as_posix()
        except ValueError:
            return p.as_posix()

    archive = env.repository if env.repository is not None and env.repository.suffix == ".zip" else None
    tree = env.repository if env.repository is not None and env.repository.is_dir() else None
    return {
        "archive_path": rel(archive) if archive else (rel(tree) if tree else None),
        "archive_sha256": sha256_file(archive) if archive else None,
        "tree_sha256": tree_sha256(tree) if tree else None,
        "manifest_path": rel(env.manifest_path),
        "manifest_sha256": sha256_file(env.manifest_path),
        "before_message_id": env.manifest.get("before_message_id"),
    }
