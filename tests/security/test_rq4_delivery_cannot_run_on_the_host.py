"""RQ4 scoring (`reqbench takeover score --rq4 ... --repository DELIVERED`) runs a hostile delivery's
commands like every other check: in the sandbox, on a fresh copy, with the scripts and checks the
commands name restored from the code environment's pre-request repository.

The environment's build script runs the delivery's own ``app.py`` (as a real build runs the project's
code), so the delivery's code runs under scoring whatever is restored.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from reqbench.protocols.takeover.rq4_delivery.checks import run_component
from tests.protocols.takeover.rq4_factory import T001_ENVIRONMENT, build_rq4_project, gold_response, score_args
from tests.security.redteam import cli

CANARY = "canary-rq4-5d1f0c2b9e7a"

HOSTILE_APP = r'''
import os, pathlib
for target, text in ((__HOST__ / "marker.txt", "the delivery wrote on the host"),
                     (__HOST__ / "stolen.txt", os.environ.get("OPENAI_API_KEY", "")),
                     (__DELIVERED__ / "pwned.txt", "written into the user's delivered folder")):
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    except OSError as exc:
        print("refused:", target, exc)
print("environment:", dict(os.environ))
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_rq4_project(tmp_path_factory.mktemp("rq4-redteam"))


def _delivered(built: Path, dest: Path) -> Path:
    shutil.copytree(built / "project" / T001_ENVIRONMENT / "repository", dest)
    return dest


def _score(built: Path, delivered: Path, cwd: Path, env: dict[str, str], *extra: str) -> tuple[int, str, dict]:
    response = gold_response(built, "DOCKSIDE_T001", "C1")
    proc = cli(score_args(built, "DOCKSIDE_T001", "C1", response, "--repository", str(delivered), *extra), env, cwd)
    data = json.loads(proc.stdout)["rq4"] if proc.returncode == 0 else {}
    return proc.returncode, proc.stdout + proc.stderr, data


def test_a_hostile_delivery_writes_nothing_on_the_host_and_reads_no_harness_secret(
        built: Path, tmp_path: Path, require_bwrap: None) -> None:
    host = tmp_path / "host-folder"
    host.mkdir()
    delivered = _delivered(built, tmp_path / "delivered")
    (delivered / "app.py").write_text(HOSTILE_APP.replace("__HOST__", f"pathlib.Path({str(host)!r})")
                                      .replace("__DELIVERED__", f"pathlib.Path({str(delivered)!r})"))
    before = sorted(p.name for p in delivered.iterdir())
    code, output, rq4 = _score(built, delivered, tmp_path, {**os.environ, "OPENAI_API_KEY": CANARY})
    assert code == 0, output
    assert sorted(p.name for p in host.iterdir()) == []  # no marker, no stolen key
    assert sorted(p.name for p in delivered.iterdir()) == before  # the user's folder is never written
    assert CANARY not in output
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes()]
    assert leaked == []
    assert rq4["evaluation"]["components"]["build"] == "PASS"  # the hostile code did run, in the sandbox
    assert rq4["isolation"] == "bwrap" and rq4["unsafe_no_sandbox"] is False


def test_a_no_op_delivery_that_rewrites_its_criterion_check_stays_fail(built: Path, tmp_path: Path,
                                                                        require_bwrap: None) -> None:
    delivered = _delivered(built, tmp_path / "delivered")
    _, output, rq4 = _score(built, delivered, tmp_path, dict(os.environ))
    assert rq4["outcome"]["result"] == "FAIL", output  # the unchanged repository misses AC001
    (delivered / "checks" / "ac001.py").write_text("raise SystemExit(0)\n")
    (delivered / "scripts" / "check.py").write_text("raise SystemExit(0)\n")
    code, output, rq4 = _score(built, delivered, tmp_path, dict(os.environ))
    assert code == 0, output
    assert rq4["outcome"] == {"score_status": "SCORED", "result": "FAIL", "reason": "ACCEPTANCE_CRITERION_FAIL"}
    evidence = rq4["evaluation"]["judge_result"]["criteria"][0]["evidence"][0]["observation"]
    assert evidence.startswith("exit code 1: protected paths restored: ['checks/ac001.py']")
    assert rq4["restored"]["regression"] == ["scripts/check.py"]
    assert (delivered / "checks" / "ac001.py").read_text() == "raise SystemExit(0)\n"  # restored in the copy only


def test_a_script_the_environment_does_not_ship_cannot_come_from_the_delivery(tmp_path: Path,
                                                                             require_bwrap: None) -> None:
    snapshot, delivered = tmp_path / "snapshot", tmp_path / "delivered"
    snapshot.mkdir()
    (delivered / "scripts").mkdir(parents=True)
    (delivered / "scripts" / "build.py").write_text("raise SystemExit(0)\n")
    run = run_component("build", ["{python}", "scripts/build.py"], delivered, snapshot, timeout=30)
    assert (run["status"], run["restored"]) == ("HARNESS_ERROR", ["scripts/build.py"])


def test_a_code_environment_other_than_the_instance_names_is_refused(built: Path, tmp_path: Path,
                                                                     require_bwrap: None) -> None:
    delivered = _delivered(built, tmp_path / "delivered")
    (delivered / "app.txt").write_text("app v2 with dark mode\n")
    code, output, rq4 = _score(built, delivered, tmp_path, dict(os.environ))
    assert code == 0 and rq4["outcome"]["result"] == "PASS", output  # positive control
    environment = tmp_path / "environment"
    shutil.copytree(built / "project", environment)
    (environment / T001_ENVIRONMENT / "repository" / "checks" / "ac001.py").write_text("raise SystemExit(0)\n")
    code, output, _ = _score(built, delivered, tmp_path, dict(os.environ), "--code-environment", str(environment))
    assert code == 2 and "tree_sha256" in output and str(environment) in output
    code, output, _ = _score(built, delivered, tmp_path, dict(os.environ), "--code-environment", str(tmp_path))
    assert code == 2 and "holds no code environment T001_before_24/repository" in output


def test_without_bubblewrap_the_delivery_is_not_run_unless_the_user_says_so(built: Path, tmp_path: Path) -> None:
    host = tmp_path / "host-folder"
    host.mkdir()
    delivered = _delivered(built, tmp_path / "delivered")
    (delivered / "app.py").write_text(f"import pathlib\npathlib.Path({str(host)!r}, 'ran').write_text('x')\n")
    no_sandbox = {**os.environ, "REQBENCH_SANDBOX": "none"}
    code, output, _ = _score(built, delivered, tmp_path, no_sandbox)
    assert code == 2 and "--unsafe-no-sandbox" in output and "bubblewrap" in output
    assert not any(host.iterdir())
    code, output, rq4 = _score(built, delivered, tmp_path, no_sandbox, "--unsafe-no-sandbox")
    assert code == 0, output
    assert rq4["unsafe_no_sandbox"] is True and rq4["isolation"] == "none"
    assert (host / "ran").is_file()  # what the user allowed: unisolated
