"""PACE cases as Harbor tasks: one single-step task per case.

The task's starting repository (``environment/repo``, copied to ``/app``) is the case's base with the PRD
at ``prd/prd.md``, as a pace row's workspace holds it; its instruction is the one a pace row gives. Its
verifier (``tests/test.sh``) is reqbench's own grading code, shipped in the task: ``tests/lib`` holds the
reqbench package (core, protocols, interop), ``tests/pace`` the case (its contract re-frozen over the
exported base, kept beside it), and `harbor_pace_grade` scores the working directory and writes
``reward`` = the weighted case score / 100. ``solution/`` holds the reference patch.

The L2 judgment is the deterministic ``token-overlap`` heuristic (PACE's semantic judge needs a model the
verifier does not have): the README and ``[metadata]`` of every task say that the reward is reqbench's
offline grading, a smoke test, not a PACE score.
"""

from __future__ import annotations

import shutil
from importlib import metadata
from pathlib import Path

import yaml

from reqbench.core.workspace import copy_tree
from reqbench.interop.harbor_env import TEST_SH_HEAD, dockerfile, toml_string, write_solution
from reqbench.protocols.pace import repo
from reqbench.protocols.pace.case import Case, check_frozen, freeze_case, load_suite
from reqbench.protocols.pace.suite import TASK_INSTRUCTION

GRADER_NEEDS = ("pydantic", "PyYAML", "tree-sitter", "tree-sitter-python", "tree-sitter-javascript",
                "tree-sitter-typescript")
"""What reqbench's pace grading imports beyond the standard library (pinned to the versions exported with)."""
SHIPPED = ("__init__.py", "py.typed", "core", "protocols", "interop")
"""The parts of the reqbench package the grader needs (no CLI, reports, studies or bundled suites)."""
TEST_SH = (TEST_SH_HEAD + 'PYTHONPATH=/tests/lib python3 -P -m reqbench.interop.harbor_pace_grade /tests/pace '
           '/logs/verifier "$PWD"\n')
"""``-P``: the working directory (the agent's tree) is never on the grader's import path, so no module the
agent leaves there (a ``reqbench`` package, a ``json.py``) is imported in place of the grader's own."""
GRADING_NOTE = ("reward = the weighted PACE case score / 100, graded offline by reqbench's deterministic "
                "pipeline (L0 contracts, L1 evidence, L2 by the token-overlap heuristic, which compares each "
                "criterion with the reference patch's evidence); a smoke test, not a PACE score, which needs "
                "PACE's semantic L2 judge")


def pace_cases(suite: Path) -> list[Case]:
    """The suite's cases, each checked to be frozen (an unfrozen or edited contract is refused, named)."""
    _, cases = load_suite(suite)
    for case in cases:
        check_frozen(case)
    return cases


def _pins() -> list[str]:
    return [f"{name}=={metadata.version(name)}" for name in GRADER_NEEDS]


def _ship_reqbench(lib: Path) -> None:
    """reqbench's code below `lib`, with the distribution's metadata (its registry: judges by name)."""
    package, dest = Path(__file__).resolve().parents[1], lib / "reqbench"
    for part in SHIPPED:
        source = package / part
        if source.is_dir():
            shutil.copytree(source, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.is_file():
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest / part)
    dist = metadata.distribution("reqbench")
    info = lib / f"reqbench-{dist.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: reqbench\nVersion: {dist.version}\n")
    (info / "entry_points.txt").write_text(dist.read_text("entry_points.txt") or "")


def _exported_case(case: Case, base: Path, dest: Path) -> None:
    """The case for the verifier: base copied beside it, the reference as a file, the contract re-frozen."""
    copy_tree(base, dest / "base")
    (dest / "prd.md").write_text(case.prd, encoding="utf-8")
    (dest / "reference.patch").write_text(case.reference_patch, encoding="utf-8")
    data = case.spec.model_dump(mode="json", exclude_none=True)
    data.update({"base": "dir:base", "prd": "prd.md", "reference_patch": "reference.patch"})
    for key in ("base_sha256", "frozen_hash", "environment"):
        data.pop(key, None)
    (dest / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    freeze_case(dest)


def write_pace_task(case: Case, dest: Path) -> list[str]:
    """One PACE case as one Harbor task at `dest`; the report lines."""
    base = repo.base_tree(case.spec.base, case.dir, case.spec.base_sha256)
    copy_tree(base, dest / "environment" / "repo")
    (dest / "environment" / "repo" / "prd").mkdir(exist_ok=True)
    (dest / "environment" / "repo" / "prd" / "prd.md").write_text(case.prd, encoding="utf-8")
    (dest / "environment" / "Dockerfile").write_text(
        dockerfile(case.spec.environment, _pins(), origin=str(case.dir / "case.yaml")))
    _ship_reqbench(dest / "tests" / "lib")
    _exported_case(case, base, dest / "tests" / "pace")
    (dest / "tests" / "test.sh").write_text(TEST_SH)
    (dest / "instruction.md").write_text(TASK_INSTRUCTION + "\n", encoding="utf-8")
    write_solution(dest, case.reference_patch)
    (dest / "README.md").write_text(f"# {case.spec.title}\n\nA PACE case exported by reqbench. The {GRADING_NOTE}."
                                    "\n", encoding="utf-8")
    (dest / "task.toml").write_text(
        f'schema_version = "1.4"\nsource = {toml_string("reqbench pace " + case.id)}\n\n[metadata]\n'
        f"title = {toml_string(case.spec.title)}\ngrading = {toml_string(GRADING_NOTE)}\n\n"
        "[verifier]\ntimeout_sec = 600.0\n\n[agent]\ntimeout_sec = 1800.0\n")
    lines = [f"{case.id}: graded offline (token-overlap L2 judge, not PACE's semantic judge): the reward is a "
             "smoke test, not a PACE score"]
    if case.spec.language != "python" and case.spec.environment is None:
        lines.append(f"{case.id}: a {case.spec.language} case without an environment block: the task's image "
                     "has Python and git only, not the case's own toolchain")
    return lines
