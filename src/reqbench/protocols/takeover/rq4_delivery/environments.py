"""RQ4 inputs: a target's code environment and its acceptance criteria (paper 6.1-6.2, B.3/C.3;
FORMAT.md (g.2)).

A takeover project may carry, next to its three files, one code environment per delivery target::

    code_environment/targets/<T###>_before_<message id>/
        manifest.json       the environment manifest (released Code Environment format: target_id,
                            before_message_id, target_event_ids, requirements_to_code, repo_sha256,
                            optionally archive_sha256, ...)
        pre_repo.zip        the pre-request repository as released (or repository.zip, or a folder
                            repository/); checked by `rq4_delivery.archives` and against the manifest's hashes
        criteria.json       the acceptance-criteria proposal (`CriteriaProposal`), or the released
                            envelope criteria_proposal.json / author/criteria_proposal.json
                            (rq4-validator-authoring-proposal-v1, whose ``payload`` holds the proposal)

The release layout ``Code Environment/<project id>/targets/...`` is accepted too. A code environment
*matches* a target when its folder name, its manifest's ``target_id`` and ``before_message_id`` all name
that target. Only proposals whose ``downstream_disposition`` is ``PROCEED_TO_VALIDATOR_AUTHORING`` enter
the agent-judge registry (the released selection rule). An archive whose hashes differ from the ones its
manifest records is an `InputError` (the environment is not the released one); every other problem is a
readiness blocker of the environment.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json, sha256_file
from reqbench.protocols.takeover.rq4_delivery.archives import ArchiveInspection, inspect_archive

PROCEED = "PROCEED_TO_VALIDATOR_AUTHORING"
DEFAULT_EVALUATION_COMMANDS = {
    "build": ["{python}", "scripts/build.py"],
    "regression": ["{python}", "scripts/check.py"],
}
"""The released registry's build and regression commands, relative to the repository root."""
TREE_IGNORED_DIRS = frozenset({"__pycache__", ".git", ".rq4-results"})
ARCHIVE_NAMES = ("pre_repo.zip", "repository.zip")
"""Repository archive names next to a manifest, in order of preference (the release's name first)."""
CRITERIA_NAMES = ("criteria.json", "criteria_proposal.json", "author/criteria_proposal.json")
"""Criteria file names next to a manifest, in order of preference."""
JUDGE_CRITERION_KEYS = ("criterion_id", "scope", "statement", "observables", "negative_cases")
_DIR_NAME = re.compile(r"(T\d{3,})_before_(.+)")


class AcceptanceCriterion(BaseModel):
    """One acceptance criterion as the judge receives it (requirement/state ids are not part of it)."""

    model_config = ConfigDict(extra="ignore")
    criterion_id: str = Field(pattern=r"^AC\d{3}$", description="AC001, AC002, ... unique per target.")
    scope: str = Field(min_length=1, description="What part of the delivery the criterion covers.")
    statement: str = Field(min_length=1, description="The behaviour the delivered project must show.")
    observables: list[str | dict[str, Any]] = Field(
        default_factory=list, description="How the behaviour can be observed (text, or the release's "
        "structured observable objects, kept as they are)."
    )
    negative_cases: list[str | dict[str, Any]] = Field(
        default_factory=list, description="Plausible partial deliveries that must not pass."
    )

    def texts(self) -> list[str]:
        """Every text the judge receives (structured items as compact JSON), for leak checks."""
        items = [self.scope, self.statement, *self.observables, *self.negative_cases]
        return [i if isinstance(i, str) else json.dumps(i, sort_keys=True, ensure_ascii=False) for i in items]


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
    criteria_file: Path | None = None
    criteria_problem: str | None = None
    archive: ArchiveInspection | None = None

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    @property
    def criteria_path(self) -> Path:
        return self.criteria_file or self.folder / "criteria.json"

    @property
    def included(self) -> bool:
        return self.proposal is not None and self.proposal.downstream_disposition == PROCEED


def command_line(argv: list[str]) -> str:
    """A registry argv as a check command: ``{python}`` stays the placeholder core fills with its own
    interpreter, every other argument is shell-quoted."""
    return " ".join(a if a == "{python}" else shlex.quote(a) for a in argv)


def command_scripts(argv: list[str]) -> list[str]:
    """The repository files an evaluation or criterion command names (``scripts/build.py``,
    ``checks/ac001.py``): every argument after the program that is a relative path with a file suffix --
    no option, placeholder, glob character, absolute path or ``..``. These are the harness's scripts, restored
    from the pre-request repository before the command runs, so a delivery cannot rewrite its own checks."""
    out = []
    for arg in argv[1:]:
        path = PurePosixPath(arg)
        if (arg.startswith("-") or any(c in arg for c in "{}*?[]\\") or path.is_absolute()
                or ".." in path.parts or not path.suffix):
            continue
        out.append(path.as_posix())
    return out


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
    """Zip safety of a repository archive (`rq4_delivery.archives.inspect_archive`); [] when safe."""
    return inspect_archive(archive).problems


def read_criteria(path: Path) -> CriteriaProposal:
    """A criteria file: reqbench's `CriteriaProposal`, or the released authoring-proposal envelope, whose
    ``payload`` holds the disposition and the criteria (requirement and state ids dropped, as the released
    registry gives the judge only `JUDGE_CRITERION_KEYS`). `InputError` naming the file when unreadable."""
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"criteria file cannot be read ({exc})", file=str(path)) from None
    if isinstance(data, dict) and isinstance(data.get("payload"), dict):
        payload = data["payload"]
        rows = payload.get("acceptance_criteria") or []
        data = {
            "downstream_disposition": payload.get("downstream_disposition"),
            "acceptance_criteria": [{k: r[k] for k in JUDGE_CRITERION_KEYS if k in r}
                                    for r in rows if isinstance(r, dict)],
        }
    try:
        return CriteriaProposal.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"invalid criteria proposal: {exc}", file=str(path)) from None


def find_criteria(folder: Path, elsewhere: list[Path] | None = None) -> Path | None:
    """The first criteria file next to the manifest (`CRITERIA_NAMES`), else the first of `elsewhere`."""
    here = [folder / n for n in CRITERIA_NAMES]
    return next((p for p in [*here, *(elsewhere or [])] if p.is_file()), None)


def check_archive_hashes(env: CodeEnvironment, checked: ArchiveInspection) -> None:
    """The manifest's ``archive_sha256`` (the zip's bytes) and ``repo_sha256`` (its tree hash) must be the
    archive's own (FORMAT.md (g.2)); `InputError` naming manifest, target and both hashes otherwise."""
    target = str(env.manifest.get("target_id") or env.folder.name)
    for key, actual, what in (("archive_sha256", checked.archive_sha256, "file hash"),
                              ("repo_sha256", checked.tree_sha256, "repository tree hash")):
        recorded = env.manifest.get(key)
        if recorded is None or actual is None or str(recorded).lower() == actual:
            continue
        raise InputError(f"{checked.path.name} does not match its manifest: {key} (the archive's {what}) "
                         f"is recorded as {recorded} but the archive gives {actual}",
                         file=str(env.manifest_path), item=f"target {target}")


def read_environment(folder: Path, criteria_elsewhere: list[Path] | None = None) -> CodeEnvironment:
    """One environment folder. An unreadable criteria file is recorded (`criteria_problem`, a blocker),
    never fatal; an archive that differs from its manifest's hashes is an `InputError`."""
    m = _DIR_NAME.fullmatch(folder.name)
    if m is None:
        raise InputError("code environment folder must be named T###_before_<message id>", file=str(folder))
    manifest = read_json(folder / "manifest.json")
    if not isinstance(manifest, dict):
        raise InputError("manifest.json must hold an object", file=str(folder / "manifest.json"))
    env = CodeEnvironment(folder, m.group(1), m.group(2), manifest, None, None)
    env.criteria_file = find_criteria(folder, criteria_elsewhere)
    if env.criteria_file is None:
        env.criteria_problem = "no criteria.json or criteria_proposal.json (acceptance criteria proposal)"
    else:
        try:
            env.proposal = read_criteria(env.criteria_file)
        except InputError as exc:
            env.criteria_problem = str(exc)
    if env.criteria_problem:
        env.blockers.append(env.criteria_problem)
    archive = next((folder / n for n in ARCHIVE_NAMES if (folder / n).is_file()), None)
    if (folder / "repository").is_dir():
        env.repository = folder / "repository"
    elif archive is not None:
        env.repository = archive
        env.archive = inspect_archive(archive)
        env.blockers += env.archive.problems
        check_archive_hashes(env, env.archive)
    else:
        env.blockers.append("no pre-request repository (pre_repo.zip, repository.zip or repository/)")
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
    tree_hash = tree_sha256(tree) if tree else (env.archive.tree_sha256 if env.archive else None)
    return {
        "archive_path": rel(archive) if archive else (rel(tree) if tree else None),
        "archive_sha256": sha256_file(archive) if archive else None,
        "tree_sha256": tree_hash,
        "manifest_path": rel(env.manifest_path),
        "manifest_sha256": sha256_file(env.manifest_path),
        "before_message_id": env.manifest.get("before_message_id"),
    }
