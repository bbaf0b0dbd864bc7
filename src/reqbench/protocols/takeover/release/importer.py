"""`reqbench takeover import`: a runnable takeover suite from a ReqMemBench release's own files.

Read from RELEASE (the release layout holding exactly one project; paper B.3, C.2-C.3; FORMAT.md (g.2)):

* the three project files (``outputs_new/...``), validated by `load_project` and copied byte for byte;
* every code environment ``Code Environment/<project id>/targets/T###_before_<mid>/``: ``manifest.json``
  and the pre-request repository ``pre_repo.zip`` (or ``repository.zip``);
* each environment's criteria file: next to its manifest (`rq4_delivery.environments.CRITERIA_NAMES`) or where the
  release's pipeline keeps it, ``ccfa-workfiles/experiments/rq4-validation/projects/<pid>/targets/
  <folder or target id>/author/criteria_proposal.json``.

Checked: the project's validation rules; every archive's zip safety (`rq4_delivery.archives`); the archive's
bytes and tree against the manifest's ``archive_sha256`` / ``repo_sha256``. Any of these failing is one
`InputError` and nothing is written. A missing or unreadable criteria file, a disposition other than
``PROCEED_TO_VALIDATOR_AUTHORING``, a manifest naming no selected target or an environment without an
archive is a *warning*: the environment is imported all the same (kept and marked in
``import_report.json``), never dropped.

Written (atomically, a temporary sibling renamed into place): ``suite.yaml``, ``project/``,
``code_environment/targets/<folder>/`` (manifest, archive and criteria file, byte for byte; usable by
``reqbench takeover build --code-environment``), ``targets/<T>/`` and ``import_report.json``. The release
ships no target validators or reference solutions (FORMAT.md (g.1): not released), so a target delivers
code only when `validators` holds ``<T###>/hidden/`` and ``<T###>/reference.patch`` (optionally
``negative*.patch``) for it; its initial repository is then the complete snapshot in its archive
(``initial_repository``), never a base plus patches, and its build and regression gates are the criteria
file's ``evaluation_commands`` (default the released ``scripts/build.py`` and ``scripts/check.py``),
with those scripts restored from the snapshot before each check so a submission cannot rewrite them.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, pretty_json
from reqbench.core.workspace.trees import remove_tree
from reqbench.protocols.takeover.annotation.loading import load_project
from reqbench.protocols.takeover.annotation.project import locate_files
from reqbench.protocols.takeover.rq4_delivery.environments import (
    DEFAULT_EVALUATION_COMMANDS,
    PROCEED,
    CodeEnvironment,
    command_line,
    command_scripts,
    default_environment_root,
    read_environment,
)

CRITERIA_HOME = Path("ccfa-workfiles") / "experiments" / "rq4-validation" / "projects"
DEFAULT_TARGET_COMMAND = "{pytest} -q {hidden}"
PROJECT_NAMES = {"normalized": "normalized_project.json", "annotation": "annotation.json",
                 "targets": "selected_target_times.json"}


@dataclass
class ImportResult:
    out: Path
    project_id: str
    environments: list[dict[str, Any]] = field(default_factory=list)
    delivery: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"suite": str(self.out), "project_id": self.project_id, "environments": self.environments,
                "delivery_targets": self.delivery, "warnings": self.warnings}


def _criteria_elsewhere(release: Path, pid: str, folder: Path, target_id: str) -> list[Path]:
    home = release / CRITERIA_HOME / pid / "targets"
    return [home / name / "author" / "criteria_proposal.json" for name in (folder.name, target_id)]


def _warnings(env: CodeEnvironment, selected: dict[str, Any]) -> list[str]:
    where = env.folder.name
    out = []
    if env.criteria_problem is not None:
        out.append(f"{where}: {env.criteria_problem}; imported without acceptance criteria (no RQ4)")
    elif env.proposal is not None and env.proposal.downstream_disposition != PROCEED:
        out.append(f"{where}: criteria disposition is {env.proposal.downstream_disposition}, not {PROCEED}; "
                   "imported, kept out of the RQ4 registry")
    tid = str(env.manifest.get("target_id"))
    if tid not in selected:
        out.append(f"{where}: manifest target_id {tid!r} is not a selected target of the project")
    elif str(selected[tid]) != env.before_message_id:
        out.append(f"{where}: target {tid} is at message {selected[tid]}, the folder names "
                   f"{env.before_message_id}")
    if env.repository is None:
        out.append(f"{where}: no pre_repo.zip; imported without a starting repository (cannot deliver)")
    return out


def _checks(env: CodeEnvironment, target_command: str) -> dict[str, Any]:
    commands = env.proposal.evaluation_commands if env.proposal is not None else DEFAULT_EVALUATION_COMMANDS
    out: dict[str, Any] = {}
    for gate in ("build", "regression"):
        argv = list(commands.get(gate) or DEFAULT_EVALUATION_COMMANDS[gate])
        out[gate] = {"command": command_line(argv), "timeout_seconds": 300, "protected": command_scripts(argv)}
    out["target"] = {"command": target_command, "timeout_seconds": 300}
    return {"build": out["build"], "target": out["target"], "regression": out["regression"]}


def _validators_for(validators: Path | None, suffix: str, target_id: str) -> Path | None:
    if validators is None:
        return None
    for name in (suffix, target_id):
        d = validators / name
        if (d / "hidden").is_dir() and (d / "reference.patch").is_file():
            return d
    return None


def import_release(release: Path, out: Path, *, validators: Path | None = None,
                   target_command: str = DEFAULT_TARGET_COMMAND) -> ImportResult:
    """Import `release` into the new suite folder `out` (see the module docstring)."""
    release, out = Path(release), Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("already exists and is not empty (the import writes a new suite folder)", file=str(out))
    if validators is not None and not validators.is_dir():
        raise InputError("validators folder does not exist", file=str(validators))
    project = load_project(release)
    pid = project.project_id
    files = locate_files(release)
    selected = {str(t["target_id"]): t["message_id"] for t in project.selected_targets}
    env_root = default_environment_root(release, pid)
    folders = sorted(p for p in env_root.iterdir() if (p / "manifest.json").is_file()) if env_root else []
    envs = []
    for folder in folders:
        first = read_environment(folder)  # the manifest's target id tells where else its criteria may be
        env = read_environment(folder, _criteria_elsewhere(release, pid, folder, str(first.manifest.get(
            "target_id")))) if first.criteria_file is None else first
        if env.archive is not None and env.archive.problems:
            raise InputError("unsafe or unreadable repository archive: " + "; ".join(env.archive.problems),
                             file=str(env.repository), item=f"target {env.manifest.get('target_id')}")
        envs.append(env)
    _one_environment_per_target(envs)
    result = ImportResult(out, pid)
    if env_root is None:
        result.warnings.append(f"no code environments (Code Environment/{pid}/targets) in the release")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", out.parent, hidden=True)
    try:
        _write_suite(tmp, result, files, envs, selected, validators, target_command)
        if out.exists():
            out.rmdir()
        os.rename(tmp, out)
    except BaseException:
        remove_tree(tmp)
        raise
    return result


def _one_environment_per_target(envs: list[CodeEnvironment]) -> None:
    """Two environments naming one target leave its starting repository ambiguous (B.3: the registry links
    each executable environment to exactly one target and boundary): one error naming both folders."""
    seen: dict[str, Path] = {}
    for env in envs:
        tid = str(env.manifest.get("target_id"))
        if tid in seen:
            raise InputError(f"a second code environment for target {tid} (the first is {seen[tid]}): which "
                             "one is its starting repository is ambiguous; keep one", file=str(env.manifest_path),
                             item=f"target {tid}")
        seen[tid] = env.folder


def _write_suite(root: Path, result: ImportResult, files: Any, envs: list[CodeEnvironment],
                 selected: dict[str, Any], validators: Path | None, target_command: str) -> None:
    (root / "project").mkdir()
    for key, name in PROJECT_NAMES.items():
        src = getattr(files, key)
        if src is not None:
            shutil.copyfile(src, root / "project" / name)
    delivery = []
    for env in envs:
        dest = root / "code_environment" / "targets" / env.folder.name
        dest.mkdir(parents=True)
        shutil.copyfile(env.manifest_path, dest / "manifest.json")
        archive = None
        if env.repository is not None:
            archive = dest / env.repository.name
            (shutil.copytree if env.repository.is_dir() else shutil.copyfile)(env.repository, archive)
        criteria = None
        if env.criteria_file is not None:
            criteria = dest / env.criteria_file.name
            shutil.copyfile(env.criteria_file, criteria)
        warnings = _warnings(env, selected)
        result.warnings += warnings
        tid = str(env.manifest.get("target_id"))
        record: dict[str, Any] = {
            "folder": env.folder.name, "target_id": tid, "source": str(env.folder),
            "archive": archive.relative_to(root).as_posix() if archive else None,
            "archive_sha256": env.archive.archive_sha256 if env.archive else None,
            "repo_sha256": env.archive.tree_sha256 if env.archive else None,
            "archive_files": env.archive.file_count if env.archive else None,
            "criteria_file": str(env.criteria_file) if env.criteria_file else None,
            "criteria_disposition": env.proposal.downstream_disposition if env.proposal else None,
            "included_in_rq4": env.included, "warnings": warnings, "delivery": False,
        }
        source = _validators_for(validators, env.target_suffix, tid)
        if source is not None and archive is not None and tid in selected:
            delivery.append(_delivery_target(root, env, tid, archive, source, target_command))
            record["delivery"] = True
            result.delivery.append(tid)
        elif validators is not None:
            result.warnings.append(f"{env.folder.name}: not a delivery target (needs a starting repository, a "
                                   f"selected target and {validators}/{env.target_suffix}/hidden + reference.patch)")
        result.environments.append(record)
    suite = {"protocol": "takeover", "name": f"{result.project_id}-release", "project": "project",
             "repository": None, "delivery": delivery}
    atomic_write_text(root / "suite.yaml", "# Imported from a ReqMemBench release by `reqbench takeover "
                      "import`; see import_report.json.\n" + yaml.safe_dump(suite, sort_keys=False))
    atomic_write_text(root / "import_report.json", pretty_json(result.to_json() | {"suite": "."}))


def _delivery_target(root: Path, env: CodeEnvironment, tid: str, archive: Path, source: Path,
                     target_command: str) -> dict[str, Any]:
    assert env.archive is not None or archive.is_dir()
    mine = root / "targets" / env.target_suffix
    shutil.copytree(source / "hidden", mine / "hidden")
    shutil.copyfile(source / "reference.patch", mine / "reference.patch")
    negatives = sorted(p.name for p in source.glob("negative*.patch"))
    for name in negatives:
        shutil.copyfile(source / name, mine / name)
    rel = f"targets/{env.target_suffix}"
    entry: dict[str, Any] = {
        "target_id": tid, "reference_patch": f"{rel}/reference.patch",
        "negative_patches": [f"{rel}/{n}" for n in negatives], "hidden": f"{rel}/hidden",
        "checks": _checks(env, target_command), "initial_repository": archive.relative_to(root).as_posix(),
    }
    if env.archive is not None:
        entry["initial_repository_sha256"] = env.archive.archive_sha256
    return entry
