"""`reqbench takeover import`: a ReqMemBench release's own code environments become a runnable suite.

Threats guarded: an archive that is not the released one accepted (hashes unchecked); a half-written
suite after a refused import; an environment silently dropped because its criteria file is missing,
unreadable or not PROCEED; a delivery target starting from base + patches instead of its snapshot; an
imported suite that does not run.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.errors import InputError
from reqbench.protocols.takeover.delivery.initial import build_initial_repository
from reqbench.protocols.takeover.suite_file import load_suite
from tests.protocols.takeover.release_factory import (
    PID,
    proposal,
    synthetic_release,
    tree_hash_of_zip,
    validators,
    zip_tree,
)
from tests.protocols.takeover.takeover_suite_factory import EXAMPLE

runner = CliRunner()
TARGET = "{pytest} -q {hidden}/test_target.py"


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module (the bundled suite's initial repositories are built once)."""
    return tmp_path_factory.mktemp("release-cache")


def _reqbench(cache: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "REQBENCH_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def _import(release: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["takeover", "import", str(release), "--out", str(out), *extra])


def test_import_copies_the_release_and_records_its_real_hashes(tmp_path: Path, shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001",))
    res = _import(release, tmp_path / "suite", "--validators", str(validators(tmp_path / "val")),
                  "--target-command", TARGET, "--json")
    assert res.exit_code == 0, res.output
    env = release / "Code Environment" / PID / "targets" / "T001_before_24"
    zip_sha = hashlib.sha256((env / "pre_repo.zip").read_bytes()).hexdigest()
    suite = yaml.safe_load((tmp_path / "suite" / "suite.yaml").read_text())
    assert suite["repository"] is None
    [d] = suite["delivery"]
    assert d["target_id"] == "DOCKSIDE_T001"
    assert d["initial_repository"] == "code_environment/targets/T001_before_24/pre_repo.zip"
    assert d["initial_repository_sha256"] == zip_sha
    assert d["checks"]["build"] == {"command": "{python} scripts/build.py", "timeout_seconds": 300,
                                    "protected": ["scripts/build.py"]}
    assert d["checks"]["regression"]["protected"] == ["scripts/check.py"]
    copied = tmp_path / "suite" / "code_environment" / "targets" / "T001_before_24"
    for name in ("pre_repo.zip", "manifest.json", "criteria_proposal.json"):
        assert (copied / name).read_bytes() == (env / name).read_bytes(), name
    assert (tmp_path / "suite" / "project" / "annotation.json").read_bytes() == \
        (EXAMPLE / "project" / "annotation.json").read_bytes()
    report = json.loads((tmp_path / "suite" / "import_report.json").read_text())
    [rec] = report["environments"]
    assert (rec["archive_sha256"], rec["repo_sha256"]) == (zip_sha, tree_hash_of_zip(env / "pre_repo.zip"))
    assert (rec["criteria_disposition"], rec["included_in_rq4"], rec["delivery"]) == \
        ("PROCEED_TO_VALIDATOR_AUTHORING", True, True)
    assert report["warnings"] == []


@pytest.mark.parametrize("key", ["repo_sha256", "archive_sha256"])
def test_a_hash_mismatch_is_one_error_naming_file_target_and_both_hashes(tmp_path: Path, shared: Path,
                                                                          key: str) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001",))
    manifest_path = release / "Code Environment" / PID / "targets" / "T001_before_24" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    actual, manifest[key] = manifest[key], "0" * 64
    manifest_path.write_text(json.dumps(manifest))
    proc = _reqbench(shared, tmp_path, "takeover", "import", str(release), "--out", str(tmp_path / "suite"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.strip()]  # one error, one line
    assert str(manifest_path) in line and "DOCKSIDE_T001" in line
    assert "0" * 64 in line and actual in line and key in line
    assert not (tmp_path / "suite").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["rel"]  # no temporary sibling left behind


def test_two_environments_for_one_target_are_one_error_and_nothing_is_written(tmp_path: Path,
                                                                              shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001",))
    targets = release / "Code Environment" / PID / "targets"
    shutil.copytree(targets / "T001_before_24", targets / "T001_before_24_copy")
    proc = _reqbench(shared, tmp_path, "takeover", "import", str(release), "--out", str(tmp_path / "suite"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.strip()]
    assert "T001_before_24_copy" in line and str(targets / "T001_before_24") in line and "DOCKSIDE_T001" in line
    assert [p.name for p in tmp_path.iterdir()] == ["rel"]


def test_criteria_problems_are_warnings_and_every_environment_is_kept(tmp_path: Path, shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001", "T002", "T003"), criteria={
        "T001": None, "T002": proposal("EXCLUDE_NO_DETERMINISTIC_OBSERVABLE"), "T003": "{not json"})
    res = _import(release, tmp_path / "suite")
    assert res.exit_code == 0, res.output
    warnings = [line for line in res.output.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 3
    assert "T001_before_24: no criteria.json or criteria_proposal.json" in warnings[0]
    assert "T002_before_30: criteria disposition is EXCLUDE_NO_DETERMINISTIC_OBSERVABLE" in warnings[1]
    assert "T003_before_38:" in warnings[2] and "criteria file cannot be read" in warnings[2]
    kept = sorted(p.name for p in (tmp_path / "suite" / "code_environment" / "targets").iterdir())
    assert kept == ["T001_before_24", "T002_before_30", "T003_before_38"]
    report = json.loads((tmp_path / "suite" / "import_report.json").read_text())
    marks = {r["folder"]: (r["criteria_disposition"], r["included_in_rq4"], len(r["warnings"]))
             for r in report["environments"]}
    assert marks == {"T001_before_24": (None, False, 1), "T002_before_30":
                     ("EXCLUDE_NO_DETERMINISTIC_OBSERVABLE", False, 1), "T003_before_38": (None, False, 1)}
    # the imported environments build: only the PROCEED one could enter the registry, none does here
    built = runner.invoke(app, ["takeover", "build", str(tmp_path / "suite" / "project"), "--out",
                                str(tmp_path / "built"), "--code-environment",
                                str(tmp_path / "suite" / "code_environment" / "targets"), "--json"])
    assert built.exit_code == 0, built.output
    assert "RQ4" not in json.loads(built.output)["instance_counts"]


def test_criteria_are_found_where_the_release_pipeline_keeps_them(tmp_path: Path, shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001",), criteria={"T001": None})
    home = release / "ccfa-workfiles/experiments/rq4-validation/projects" / PID / "targets" / "DOCKSIDE_T001"
    (home / "author").mkdir(parents=True)
    (home / "author" / "criteria_proposal.json").write_text(json.dumps(proposal()))
    res = _import(release, tmp_path / "suite", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["warnings"] == []
    copied = tmp_path / "suite" / "code_environment" / "targets" / "T001_before_24" / "criteria_proposal.json"
    assert copied.read_bytes() == (home / "author" / "criteria_proposal.json").read_bytes()
    built = runner.invoke(app, ["takeover", "build", str(tmp_path / "suite" / "project"), "--out",
                                str(tmp_path / "built"), "--code-environment",
                                str(tmp_path / "suite" / "code_environment" / "targets")])
    assert built.exit_code == 0, built.output
    registry = json.loads((tmp_path / "built" / "rq4_agent_judge_registry.json").read_text())
    [target] = registry["targets"]
    # the judge gets the criterion without the release's requirement/state references
    assert target["acceptance_criteria"] == [{
        "criterion_id": "AC001", "scope": "TARGET_BEHAVIOR", "statement": "Invoices follow the new rule.",
        "observables": [{"observable_id": "OBS001", "type": "FUNCTION", "surface": "billing"}],
        "negative_cases": []}]
    env = release / "Code Environment" / PID / "targets" / "T001_before_24"
    assert target["code_environment"]["tree_sha256"] == tree_hash_of_zip(env / "pre_repo.zip")


def test_the_snapshot_is_the_initial_repository_not_base_plus_patches(tmp_path: Path, shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001",))
    env = release / "Code Environment" / PID / "targets" / "T001_before_24"
    tree = tmp_path / "tree"  # a snapshot no patch could give: one file more than the bundled suite's
    with zipfile.ZipFile(env / "pre_repo.zip") as z:
        z.extractall(tree)
    (tree / "RELEASE_ONLY.txt").write_text("only in the released snapshot\n")
    zip_tree(tree, env / "pre_repo.zip")
    manifest = {"target_id": "DOCKSIDE_T001", "before_message_id": 24,
                "repo_sha256": tree_hash_of_zip(env / "pre_repo.zip")}
    (env / "manifest.json").write_text(json.dumps(manifest))
    assert _import(release, tmp_path / "suite", "--validators", str(validators(tmp_path / "val"))).exit_code == 0
    suite_dir = tmp_path / "suite"
    initial = build_initial_repository(suite_dir, load_suite(suite_dir), "DOCKSIDE_T001", tmp_path / "cache")
    got = sorted(p.relative_to(initial).as_posix() for p in initial.rglob("*") if p.is_file())
    want = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    assert got == want and "RELEASE_ONLY.txt" in got
    assert (initial / "RELEASE_ONLY.txt").read_text() == "only in the released snapshot\n"


def test_a_snapshot_changed_after_import_is_refused_before_extraction(tmp_path: Path, shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001",))
    assert _import(release, tmp_path / "suite", "--validators", str(validators(tmp_path / "val"))).exit_code == 0
    archive = tmp_path / "suite" / "code_environment" / "targets" / "T001_before_24" / "pre_repo.zip"
    with zipfile.ZipFile(archive, "a") as z:
        z.writestr("billing/extra.py", "X = 1\n")
    with pytest.raises(InputError, match="initial_repository sha256 is"):
        build_initial_repository(tmp_path / "suite", load_suite(tmp_path / "suite"), "DOCKSIDE_T001",
                                 tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_a_suite_without_repository_needs_a_snapshot_per_delivery_target(tmp_path: Path) -> None:
    (tmp_path / "project").symlink_to(EXAMPLE / "project")
    (tmp_path / "targets").symlink_to(EXAMPLE / "targets")
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump({
        "protocol": "takeover", "name": "x", "repository": None,
        "delivery": [{"target_id": "DOCKSIDE_T001", "reference_patch": "targets/T001/reference.patch",
                      "hidden": "targets/T001/hidden"}]}))
    with pytest.raises(InputError, match="needs an initial_repository") as exc:
        load_suite(tmp_path)
    assert exc.value.item == "delivery target DOCKSIDE_T001"


# --- the imported suite runs end to end ---------------------------------------------------------------

def test_the_imported_suite_runs_with_the_reference_and_null_agents(tmp_path: Path, shared: Path) -> None:
    release = synthetic_release(tmp_path / "rel", shared, ("T001", "T002"), criteria={
        "T001": proposal(), "T002": None})
    res = _import(release, tmp_path / "suite", "--validators", str(validators(tmp_path / "val", ("T001",))),
                  "--target-command", TARGET)
    assert res.exit_code == 0, res.output
    cache = tmp_path / "rcache"
    proc = _reqbench(cache, tmp_path, "validate", str(tmp_path / "suite"))
    assert proc.returncode == 0, proc.stdout + proc.stderr  # admission: initial B/T/R = PASS/FAIL/PASS etc.
    table = {}
    for agent in ("reference", "null"):
        proc = _reqbench(cache, tmp_path, "run", str(tmp_path / "suite"), "--out", str(tmp_path / agent),
                         "--quiet", "--concurrency", "2", "--agent", agent, "--condition", "C1")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        proc = _reqbench(cache, tmp_path, "report", str(tmp_path / agent), "--json")
        table[agent] = json.loads(proc.stdout)["takeover"]["delivery"]["C1"]
    assert table["reference"] == {"n": 1, "complete_delivery": 1.0, "build": 1.0, "target": 1.0,
                                  "regression": 1.0, "pending": 0, "invalid": 0, "unstarted": 0, "final": True}
    assert (table["null"]["n"], table["null"]["complete_delivery"], table["null"]["build"]) == (1, 0.0, 0.0)
