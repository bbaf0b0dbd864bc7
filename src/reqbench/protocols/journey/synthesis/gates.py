"""The gates a synthesized subtask must pass before it joins the instance (SWE-Journey §3.2).

* **Execution gate** (`execution_gate`): the candidate is added to a trial copy of the draft instance and
  the whole draft is calibrated with `journey.calibrate` — the one place the F2P/P2P rules live: the
  subtask's F2P nodes fail before and pass after its patch, its P2P nodes pass before and after, and the
  earlier subtasks' rules (and the whole-task rules of A.4) still hold with the new tests present.
* **Rubric gate** (`rubric_failures`): a model answers every item of `prompts.RUBRIC_ITEMS`; a missing or
  failed item fails the gate (fail closed).

The execution gate runs first: it costs no model tokens, and a candidate that does not execute is not
worth a semantic review. A failing gate returns its reasons, which the pipeline feeds back to the weak
model (retry) or to the planner (return to planning).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from reqbench.core.errors import HarnessError, InputError
from reqbench.core.hashing import atomic_write_text
from reqbench.core.workspace.fileio import write_private
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.env import copy_tree, diff_trees, make_workspace
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.synthesis.prompts import RUBRIC_ITEMS


@dataclass
class Candidate:
    """One weak-model implementation of a planned subtask, checked for shape."""

    request: str
    plain: str
    acceptance_criteria: list[str]
    files: dict[str, str | None]
    tests: dict[str, str]
    f2p: list[str]
    p2p: list[str]


def _safe_rel(path: object, under: str | None = None) -> str:
    if not isinstance(path, str) or not path:
        raise ValueError(f"path {path!r} is not a non-empty string")
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or pure.parts[0] in (".git",):
        raise ValueError(f"path {path!r} must stay inside its tree")
    if under is not None and pure.parts[0] != under:
        raise ValueError(f"test file {path!r} must be under {under}/")
    return pure.as_posix()


def parse_candidate(answer: Any, tests_dir: str) -> Candidate:
    """The weak model's answer as a `Candidate`; ValueError naming the broken rule."""
    if not isinstance(answer, dict):
        raise ValueError("the answer is not a JSON object")
    for key in ("request", "plain"):
        if not isinstance(answer.get(key), str) or not answer[key].strip():
            raise ValueError(f"{key} must be a non-empty string")
    lists = {k: answer.get(k) or [] for k in ("acceptance_criteria", "f2p", "p2p", "files", "tests")}
    if not all(isinstance(v, list) for v in lists.values()):
        raise ValueError("acceptance_criteria, f2p, p2p, files and tests must be lists")
    files = {_safe_rel(f.get("path")): f.get("content") for f in lists["files"] if isinstance(f, dict)}
    tests = {_safe_rel(t.get("path"), tests_dir): t.get("content") for t in lists["tests"] if isinstance(t, dict)}
    if any(c is not None and not isinstance(c, str) for c in files.values()) or \
            not all(isinstance(c, str) for c in tests.values()):
        raise ValueError("file contents must be strings (null deletes a repository file)")
    if not files or not tests or not lists["f2p"] or not lists["acceptance_criteria"]:
        raise ValueError("a subtask needs files, tests, f2p nodes and acceptance criteria")
    return Candidate(answer["request"].strip(), answer["plain"].strip(),
                     [str(c) for c in lists["acceptance_criteria"]], files, tests,  # type: ignore[arg-type]
                     [str(n) for n in lists["f2p"]], [str(n) for n in lists["p2p"]])


def apply_files(tree: Path, files: dict[str, str | None]) -> None:
    """Write complete new contents (None removes the file) below `tree`, never through a symbolic link
    (a seed repository may hold links; a model-chosen path through one is refused with ValueError)."""
    for rel, content in files.items():
        target = tree / rel
        for parent in [*reversed(target.relative_to(tree).parents)][1:]:
            if (tree / parent).is_symlink():
                raise ValueError(f"path {rel!r} goes through the symbolic link {parent.as_posix()!r}")
        if content is None:
            if target.is_symlink() or target.is_file():
                target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        write_private(target, content)


def execution_gate(draft: Path, current: Path, spec: dict[str, Any], head: dict[str, Any], cand: Candidate,
                   trial: Path) -> tuple[list[str], dict[str, Any] | None]:
    """Calibrate the draft plus `cand` in `trial` (a fresh directory). `head` carries the subtask's id,
    title, depends_on and p2p_include. Returns (reasons, subtask entry); the entry is None when the gate
    fails. `current` is the tree after the accepted patches."""
    sub_id = head["id"]
    copy_tree(draft, trial)
    after = make_workspace(current, trial.parent / f"{trial.name}-after")
    try:
        apply_files(after, cand.files)
        patch = diff_trees(current, after, None)
    finally:
        shutil.rmtree(after, ignore_errors=True)
    if not patch.strip():
        return ["the reference change is empty"], None
    apply_files(trial / "hidden", dict(cand.tests))
    (trial / "patches").mkdir(exist_ok=True)
    atomic_write_text(trial / "patches" / f"{sub_id}.patch", patch)
    entry = {**head, "request": cand.request, "plain": cand.plain,
             "acceptance_criteria": cand.acceptance_criteria, "reference_patch": f"patches/{sub_id}.patch",
             "f2p": cand.f2p, "p2p": cand.p2p}
    trial_spec = json.loads(json.dumps(spec))
    trial_spec["stages"][-1]["subtasks"].append(entry)
    atomic_write_text(trial / "instance.yaml", yaml.safe_dump(trial_spec, sort_keys=False, allow_unicode=True))
    try:
        report = calibrate(load_instance(trial))
    except InputError as exc:
        return [f"the instance does not load: {exc}"], None
    except HarnessError as exc:
        return [f"the hidden tests could not run: {exc}"], None
    reasons = [f.sentence() for f in report.findings]
    return reasons, (None if reasons else entry)


def rubric_failures(answer: Any) -> list[str]:
    """Failed or missing rubric items of the reviewer's answer (fail closed)."""
    items = answer.get("rubric") if isinstance(answer, dict) else None
    if not isinstance(items, list):
        return ["the rubric answer has no `rubric` list"]
    got = {i.get("item"): i for i in items if isinstance(i, dict)}
    out = [f"rubric item {name} was not answered" for name in RUBRIC_ITEMS if name not in got]
    out += [f"rubric item {name} failed: {got[name].get('reason', '')}".rstrip(": ")
            for name in RUBRIC_ITEMS if name in got and got[name].get("pass") is not True]
    return out
