"""RQ4 (agent-as-judge delivery): environments, build, finalizer, aggregation and the score commands.

Expected values are worked out by hand from the rules in `rq4_delivery/scoring.py` (FORMAT.md (g.2)).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.protocols.takeover.rq4_delivery.checks import run_component
from reqbench.protocols.takeover.rq4_delivery.environments import archive_problems, tree_sha256
from reqbench.protocols.takeover.rq4_delivery.scoring import (
    aggregate,
    finalize,
    judge_result_problems,
    paired_conditions,
    run_outcome,
)
from tests.protocols.takeover.rq4_factory import build_rq4_project, gold_response, score_args

runner = CliRunner()


def _verdicts(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {
        "schema_version": "rq4-agent-judge-result-v1",
        "target_id": "P_T001",
        "criteria": [
            {"criterion_id": cid, "verdict": v, "evidence": [{"operation": "op", "observation": "seen"}]}
            for cid, v in pairs
        ],
        "judge_summary": "checked",
    }


@pytest.mark.parametrize(
    ("script", "expected"),
    [("raise SystemExit(0)", "PASS"), ("raise SystemExit(1)", "FAIL"), ("raise SystemExit(2)", "HARNESS_ERROR"),
     ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", "HARNESS_ERROR"),
     ("import time; time.sleep(30)", "HARNESS_ERROR"), (None, "HARNESS_ERROR")],
)
def test_component_exit_codes(tmp_path: Path, script: str | None, expected: str) -> None:
    """C.2 on real processes: 0 PASS, 1 FAIL; another code, a kill, a timeout or a script that cannot
    start (missing from the environment, so python exits 2) HARNESS_ERROR."""
    snapshot, delivered = tmp_path / "snapshot", tmp_path / "delivered"
    (snapshot / "scripts").mkdir(parents=True)
    if script is not None:
        (snapshot / "scripts" / "build.py").write_text(script + "\n")
    shutil.copytree(snapshot, delivered)
    run = run_component("build", ["{python}", "scripts/build.py"], delivered, snapshot, timeout=3)
    assert run["status"] == expected, run


@pytest.mark.parametrize(
    ("components", "verdicts", "status", "result", "reason"),
    [
        ({"build": "HARNESS_ERROR", "regression": "FAIL"}, [("AC001", "PASS")], "JUDGE_ERROR", None,
         "BUILD_OR_REGRESSION_HARNESS_ERROR"),
        ({"build": "PASS", "regression": "FAIL"}, [("AC001", "PASS")], "SCORED", "FAIL", "BUILD_OR_REGRESSION_FAIL"),
        ({"build": "PASS", "regression": "PASS"}, None, "JUDGE_ERROR", None, "MISSING_AGENT_JUDGE_RESULT"),
        ({"build": "PASS", "regression": "PASS"}, [("AC001", "FAIL"), ("AC002", "UNSURE")], "REVIEW_REQUIRED",
         None, "JUDGE_UNSURE"),
        ({"build": "PASS", "regression": "PASS"}, [("AC001", "PASS"), ("AC002", "FAIL")], "SCORED", "FAIL",
         "ACCEPTANCE_CRITERION_FAIL"),
        ({"build": "PASS", "regression": "PASS"}, [("AC001", "PASS"), ("AC002", "PASS")], "SCORED", "PASS",
         "ALL_GATES_PASS"),
    ],
)
def test_finalizer_rules_in_order(components, verdicts, status, result, reason) -> None:  # type: ignore[no-untyped-def]
    rec = finalize(components, _verdicts(*verdicts) if verdicts else None, target_id="P_T001", condition="C1")
    assert (rec["score_status"], rec["result"], rec["decision_reason"]) == (status, result, reason)
    assert rec["schema_version"] == "rq4-evaluation-result-v1"
    assert rec["finalizer_version"] == "rq4-agent-judge-finalizer-v1"
    assert rec["run_id"] is None and rec["condition"] == "C1"


def test_judge_result_must_cover_exactly_the_criteria_and_name_real_artifacts(tmp_path: Path) -> None:
    good = _verdicts(("AC001", "PASS"), ("AC002", "FAIL"))
    assert judge_result_problems(good, "P_T001", ["AC001", "AC002"]) == []
    assert judge_result_problems(good, "P_T001", ["AC001"])  # AC002 is extra
    assert judge_result_problems(good, "P_T002", ["AC001", "AC002"])  # wrong target
    assert judge_result_problems({**good, "overall": "PASS"}, "P_T001", ["AC001", "AC002"])  # closed object
    bad_verdict = _verdicts(("AC001", "MAYBE"))
    assert judge_result_problems(bad_verdict, "P_T001", ["AC001"])
    no_evidence = _verdicts(("AC001", "PASS"))
    no_evidence["criteria"][0]["evidence"] = []
    assert judge_result_problems(no_evidence, "P_T001", ["AC001"])
    with_artifact = _verdicts(("AC001", "PASS"))
    with_artifact["criteria"][0]["evidence"][0]["artifact"] = ".rq4-results/log.txt"
    assert judge_result_problems(with_artifact, "P_T001", ["AC001"], tmp_path)  # file missing
    (tmp_path / ".rq4-results").mkdir()
    (tmp_path / ".rq4-results" / "log.txt").write_text("ok")
    assert judge_result_problems(with_artifact, "P_T001", ["AC001"], tmp_path) == []
    with_artifact["criteria"][0]["evidence"][0]["artifact"] = "../outside.txt"
    (tmp_path.parent / "outside.txt").write_text("x")
    assert judge_result_problems(with_artifact, "P_T001", ["AC001"], tmp_path)


def test_run_outcomes_and_success_rate_by_hand() -> None:
    scored_pass = finalize({"build": "PASS", "regression": "PASS"}, _verdicts(("AC001", "PASS")))
    scored_fail = finalize({"build": "FAIL", "regression": "PASS"}, None)
    unsure = finalize({"build": "PASS", "regression": "PASS"}, _verdicts(("AC001", "UNSURE")))
    outcomes = [
        run_outcome(scored_pass),                                      # SCORED PASS
        run_outcome(scored_fail),                                      # SCORED FAIL
        run_outcome(unsure),                                           # REVIEW_REQUIRED
        run_outcome(None, phase_a_decision="CLARIFY"),                 # SCORED FAIL, no code
        run_outcome(None, phase_a_decision="ACT", phase_b_agent_failed=True),  # SCORED FAIL
        run_outcome(None, phase_a_decision="ACT"),                     # PENDING
    ]
    assert [o["reason"] for o in outcomes[3:]] == ["NO_CODE_SUBMISSION", "PHASE_B_AGENT_FAILURE",
                                                   "INCOMPLETE_PIPELINE"]
    agg = aggregate(outcomes)
    # 4 SCORED (1 PASS), 1 REVIEW_REQUIRED, 1 PENDING: success = 1/4
    assert (agg["n"], agg["scored"], agg["pass"], agg["review_required"], agg["pending"]) == (6, 4, 1, 1, 1)
    assert agg["success_rate"] == pytest.approx(0.25) and agg["final"] is False
    assert aggregate([])["success_rate"] is None


def test_paired_conditions_count_only_keys_scored_in_both() -> None:
    p, f = {"score_status": "SCORED", "result": "PASS"}, {"score_status": "SCORED", "result": "FAIL"}
    pend = {"score_status": "PENDING", "result": None}
    c1 = {"T1": p, "T2": p, "T3": f, "T4": f, "T5": p}
    c2 = {"T1": p, "T2": f, "T3": p, "T4": f, "T5": pend}
    assert paired_conditions({"C1": c1, "C2": c2}) == {"pairs": 4, "both_pass": 1, "c1_only": 1, "c2_only": 1,
                                                       "neither": 1}


def test_tree_hash_by_hand(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a.txt").write_bytes(b"A")
    (tmp_path / "b" / "c.txt").write_bytes(b"C")
    for ignored in (".git/HEAD", "__pycache__/x.cpython.pyc", ".rq4-results/log", "b/d.pyc"):
        (tmp_path / ignored).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / ignored).write_bytes(b"ignored")
    assert tree_sha256(tmp_path) == hashlib.sha256(b"a.txt\0A\0b/c.txt\0C\0").hexdigest()


def test_unsafe_archives_are_reported(tmp_path: Path) -> None:
    import zipfile

    z = tmp_path / "repository.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("ok.txt", "x")
        f.writestr("../evil.txt", "x")
        f.writestr(".git/config", "x")
    problems = archive_problems(z)
    assert any("path traversal" in p for p in problems) and any(".git" in p for p in problems)


# --- a project with code environments (`rq4_factory`) -----------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_rq4_project(tmp_path_factory.mktemp("rq4"))


def test_build_writes_rq4_instances_and_the_registry(built: Path) -> None:
    out = built / "out"
    reg = json.loads((out / "rq4_agent_judge_registry.json").read_text())
    assert reg["schema_version"] == "rq4-agent-judge-registry-v1"
    assert reg["selection"] == {"raw_target_count": 3, "included_target_count": 2,
                                "rule": "CRITERIA_DISPOSITION_PROCEED_TO_VALIDATOR_AUTHORING"}
    assert [t["target_id"] for t in reg["targets"]] == ["DOCKSIDE_T001", "DOCKSIDE_T005"]
    t1, t5 = reg["targets"]
    assert list(t1) == ["project_id", "target_id", "target_message_id", "target_fingerprint", "status",
                        "condition_eligibility", "acceptance_criteria", "evaluation_commands", "code_environment",
                        "source_identity"]
    # T001's RQ3 gold is ACT: eligible; T005's is CLARIFY: excluded under both conditions
    assert t1["condition_eligibility"]["C2"] == {"rq3_gold_decision": "ACT", "rq4_eligible": True,
                                                 "status": "ELIGIBLE", "exclusion_reason": None}
    assert t5["condition_eligibility"]["C1"]["exclusion_reason"] == "RQ3_NOT_ACT"
    assert t1["evaluation_commands"] == {"build": ["{python}", "scripts/build.py"],
                                         "regression": ["{python}", "scripts/check.py"]}
    assert t1["code_environment"]["archive_path"] == "code_environment/targets/T001_before_24/repository"
    assert t1["code_environment"]["tree_sha256"] == tree_sha256(
        built / "project" / "code_environment" / "targets" / "T001_before_24" / "repository")
    assert t1["source_identity"]["rq3_instance_path"] == "RQ3/DOCKSIDE_T001_RQ3.json"
    inst = json.loads((out / "RQ4" / "DOCKSIDE_T001_RQ4.json").read_text())
    assert inst["rq_id"] == "RQ4" and inst["response_contract"]["schema_version"] == "rq4-repository-result-v2"
    assert inst["construction_gold"]["registry_target"] == t1
    assert inst["readiness"]["formal_execution_allowed"] is True
    # RQ4 shows in the applicable RQs of the target's other instances and in the manifest
    assert json.loads((out / "RQ3" / "DOCKSIDE_T001_RQ3.json").read_text())["applicable_rqs"][-1] == "RQ4"
    assert "RQ4" not in json.loads((out / "RQ3" / "DOCKSIDE_T002_RQ3.json").read_text())["applicable_rqs"]
    manifest = json.loads((out / "rq_instance_manifest.json").read_text())
    assert manifest["rq_counts"]["RQ4"] == 2 and "RQ4" in manifest["layout"]["rq_directories"]


def test_package_manifests_carry_the_rq4_block(built: Path) -> None:
    base = next((built / "out" / "rq_agent_inputs").glob("*/DOCKSIDE"))
    m1 = json.loads((base / "DOCKSIDE_T001" / "C1" / "private" / "package_manifest.json").read_text())
    assert m1["execution_rq"] == "RQ4" and m1["repository"]["tree_sha256"]
    assert m1["rq4"] == {"eligible": True, "eligibility_status": "ELIGIBLE", "execution_ready": True,
                         "exclusion_reason": None, "acceptance_criteria": ["AC001"],
                         "validator_ids": ["DOCKSIDE_T001_AGENT_JUDGE"], "execution_readiness_blockers": []}
    m5 = json.loads((base / "DOCKSIDE_T005" / "C2" / "private" / "package_manifest.json").read_text())
    assert m5["execution_rq"] is None and m5["repository"] is None
    assert (m5["rq4"]["eligible"], m5["rq4"]["exclusion_reason"]) == (False, "RQ3_NOT_ACT")
    m2 = json.loads((base / "DOCKSIDE_T002" / "C1" / "private" / "package_manifest.json").read_text())
    assert m2["rq4"]["eligibility_status"] is None  # not in the registry (subjective review)
    for public in base.glob("*/*/public/*"):
        assert "AC001" not in public.read_text() and "dark mode" not in public.read_text()


def _score(built: Path, target: str, condition: str, decision_response: Path, *extra: str) -> dict[str, Any]:
    res = runner.invoke(app, score_args(built, target, condition, decision_response, *extra))
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["rq4"]


def test_score_rq4_with_the_exact_judge(built: Path, tmp_path: Path) -> None:
    response = gold_response(built, "DOCKSIDE_T001", "C1")
    repo = tmp_path / "delivered"
    shutil.copytree(built / "project" / "code_environment" / "targets" / "T001_before_24" / "repository", repo)
    # the unchanged repository builds and passes regression but fails AC001
    r = _score(built, "DOCKSIDE_T001", "C1", response, "--repository", str(repo))
    assert r["outcome"] == {"score_status": "SCORED", "result": "FAIL", "reason": "ACCEPTANCE_CRITERION_FAIL"}
    assert r["evaluation"]["components"] == {"build": "PASS", "regression": "PASS"}
    (repo / "app.txt").write_text("app v2 with dark mode\n")
    r = _score(built, "DOCKSIDE_T001", "C1", response, "--repository", str(repo))
    assert r["outcome"]["result"] == "PASS" and r["evaluation"]["judge_config_id"] == "exact"
    assert (repo / "app.txt").read_text() == "app v2 with dark mode\n"  # submission untouched
    (repo / "app.txt").write_text("broken\n")  # regression check fails
    r = _score(built, "DOCKSIDE_T001", "C1", response, "--repository", str(repo))
    assert r["outcome"]["reason"] == "BUILD_OR_REGRESSION_FAIL"
    # no repository: Phase-B agent failure; an ineligible target is not scored
    assert _score(built, "DOCKSIDE_T001", "C1", response)["outcome"]["reason"] == "PHASE_B_AGENT_FAILURE"
    r5 = _score(built, "DOCKSIDE_T005", "C1", gold_response(built, "DOCKSIDE_T005", "C1"))
    assert (r5["eligible"], r5["exclusion_reason"], r5["outcome"]) == (False, "RQ3_NOT_ACT", None)


def test_score_rq4_with_an_agent_judge_result(built: Path, tmp_path: Path) -> None:
    response = gold_response(built, "DOCKSIDE_T001", "C2")
    repo = tmp_path / "delivered"
    shutil.copytree(built / "project" / "code_environment" / "targets" / "T001_before_24" / "repository", repo)
    verdict = _verdicts(("AC001", "UNSURE"))
    verdict["target_id"] = "DOCKSIDE_T001"
    (tmp_path / "judge.json").write_text(json.dumps(verdict))
    r = _score(built, "DOCKSIDE_T001", "C2", response, "--repository", str(repo),
               "--judge-result", str(tmp_path / "judge.json"))
    assert r["outcome"] == {"score_status": "REVIEW_REQUIRED", "result": None, "reason": "JUDGE_UNSURE"}
    verdict["criteria"].append({**verdict["criteria"][0], "criterion_id": "AC002"})
    (tmp_path / "judge.json").write_text(json.dumps(verdict))
    r = _score(built, "DOCKSIDE_T001", "C2", response, "--repository", str(repo),
               "--judge-result", str(tmp_path / "judge.json"))
    assert r["outcome"]["reason"] == "MISSING_AGENT_JUDGE_RESULT" and r["problems"]


def test_score_run_reports_rq4(built: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    out = built / "out"
    for cond in ("C1", "C2"):
        folder = run / "responses" / "cfgA" / cond
        folder.mkdir(parents=True)
        shutil.copy(gold_response(built, "DOCKSIDE_T001", cond), folder / "DOCKSIDE_T001.json")
    ok = finalize({"build": "PASS", "regression": "PASS"}, _verdicts(("AC001", "PASS")),
                  target_id="DOCKSIDE_T001", condition="C1")
    (run / "rq4" / "cfgA" / "C1").mkdir(parents=True)
    (run / "rq4" / "cfgA" / "C1" / "DOCKSIDE_T001.json").write_text(json.dumps(ok))
    res = runner.invoke(app, ["takeover", "score-run", str(run), "--instances", str(out), "--json"])
    assert res.exit_code == 0, res.output
    rq4 = json.loads(res.stdout)["rq4"]  # stderr holds the coverage warnings
    # only T001 is eligible; C1 has its PASS record, C2 has an ACT response but no result yet (pending)
    assert rq4["by_condition"]["cfgA"]["C1"]["success_rate"] == 1.0
    assert rq4["by_condition"]["cfgA"]["C2"]["pending"] == 1
    assert rq4["by_condition"]["cfgA"]["C2"]["success_rate"] is None
    assert rq4["paired"]["cfgA"]["pairs"] == 0
    res = runner.invoke(app, ["takeover", "score-run", str(run), "--instances", str(out)])
    assert "RQ4" in res.output and "Delivery with the agent judge" in res.output


def test_the_snapshot_of_a_zipped_environment_is_extracted_and_hash_checked(tmp_path: Path) -> None:
    import zipfile

    from reqbench.core.errors import InputError
    from reqbench.core.hashing import sha256_file
    from reqbench.protocols.takeover.rq4_delivery.archives import inspect_archive
    from reqbench.protocols.takeover.rq4_delivery.checks import environment_snapshot

    env = tmp_path / "project" / "code_environment" / "targets" / "T001_before_24"
    env.mkdir(parents=True)
    archive = env / "pre_repo.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("checks/ac001.py", "raise SystemExit(1)\n")
    record = {"target_id": "P_T001", "code_environment": {
        "archive_path": "code_environment/targets/T001_before_24/pre_repo.zip",
        "archive_sha256": sha256_file(archive), "tree_sha256": inspect_archive(archive).tree_sha256}}
    for given in (tmp_path / "project", env.parent, env):  # the project, its targets/ or the environment itself
        with environment_snapshot(record, given) as snapshot:
            assert (snapshot / "checks" / "ac001.py").read_text() == "raise SystemExit(1)\n"
            kept = snapshot
        assert not kept.exists()  # the extracted copy is removed afterwards
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("checks/ac001.py", "raise SystemExit(0)\n")
    with pytest.raises(InputError, match="archive_sha256"), environment_snapshot(record, env):
        pass
