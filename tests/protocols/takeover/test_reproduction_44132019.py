"""`reqbench takeover build` on the real project 44132019 reproduces the released files.

State graph, gold states and the T001/C2 public task + history (and the instructions / response schema
when the original texts are passed in) byte for byte; RQ instances equal as JSON once the release-process
metadata keys are set aside. The reference lives outside the repository (DESIGN §9): skipped when absent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .ledger_factory import FIXTURE, REFERENCE, RELEASE

pytestmark = pytest.mark.skipif(
    not FIXTURE.is_dir(), reason=f"ReqMemBench reference not found at {REFERENCE}"
)

STAGE2 = FIXTURE / "outputs_new" / "stage2" / "44132019"
RELEASED_PKG = FIXTURE / "outputs_new" / "rq_agent_inputs" / RELEASE / "44132019"
DERIVED_PKG = FIXTURE / "DERIVED_public_packages"
METADATA_KEYS = {
    "review_metadata",
    "review_status",
    "review_notes",
    "source_artifacts",
    "input_release",
    "target_fingerprint",
    "fingerprints",
    "readiness",
    "visibility",
}


def _instructions() -> Path:
    return next((REFERENCE / "schemas" / "outputs_new").rglob("instructions.md"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("repro") / "out"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "reqbench.cli.main",
            "takeover",
            "build",
            str(FIXTURE),
            "--out",
            str(out),
            "--input-release",
            RELEASE,
            "--instructions",
            str(_instructions()),
            "--response-schema",
            str(REFERENCE / "schemas" / "schema" / "rq_agent_response.schema.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    return out


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in METADATA_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


@pytest.mark.parametrize("name", ["requirement_state_graph.json", "gold_states.json"])
def test_graph_and_gold_are_byte_identical(built: Path, name: str) -> None:
    assert (built / name).read_bytes() == (STAGE2 / name).read_bytes()


@pytest.mark.parametrize(
    "instance", [f"RQ{n}/44132019_{t}_RQ{n}.json" for n in (1, 2, 3) for t in ("T001", "T002")]
)
def test_rq_instances_equal_the_released_ones_apart_from_release_metadata(built: Path, instance: str) -> None:
    ours = json.loads((built / instance).read_text(encoding="utf-8"))
    released = json.loads((STAGE2 / instance).read_text(encoding="utf-8"))
    assert _strip(ours) == _strip(released)
    # fingerprints depend only on the release name and public inputs: they match too
    assert ours["target_fingerprint"] == released["target_fingerprint"]
    assert ours["fingerprints"] == released["fingerprints"]


def test_rq_index_lists_the_released_hash_inputs(built: Path) -> None:
    ours, released = (json.loads((d / "RQ1" / "index.json").read_text()) for d in (built, STAGE2))

    def drop(idx):
        return {
            **idx,
            "instances": [{k: v for k, v in i.items() if k != "content_sha256"} for i in idx["instances"]],
        }

    assert drop(ours) == drop(released)


@pytest.mark.parametrize("name", ["task.json", "history.jsonl"])
def test_released_t001_c2_public_files_are_byte_identical(built: Path, name: str) -> None:
    ours = built / "rq_agent_inputs" / RELEASE / "44132019" / "44132019_T001" / "C2" / "public" / name
    assert ours.read_bytes() == (RELEASED_PKG / "44132019_T001" / "C2" / "public" / name).read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        f"44132019_{t}/{c}/public/{n}"
        for t in ("T001", "T002")
        for c in ("C1", "C2")
        for n in ("task.json", "history.jsonl", "instructions.md", "response.schema.json")
    ],
)
def test_every_public_package_file_matches_the_derived_reference(built: Path, path: str) -> None:
    ours = built / "rq_agent_inputs" / RELEASE / "44132019" / path
    assert ours.read_bytes() == (DERIVED_PKG / path).read_bytes()


def test_package_ids_match_the_released_and_derived_ones(built: Path) -> None:
    root = built / "rq_agent_inputs" / RELEASE / "44132019"
    ids = {
        f"{p.parent.parent.parent.name}/{p.parent.parent.name}": json.loads(p.read_text())["package_id"]
        for p in root.glob("*/*/private/package_manifest.json")
    }
    released = json.loads(
        (RELEASED_PKG / "44132019_T001" / "C2" / "private" / "package_manifest.json").read_text()
    )
    assert ids == {
        "44132019_T001/C1": "pkg_e9884f4dfeba30e96c5a",
        "44132019_T001/C2": released["package_id"],
        "44132019_T002/C1": "pkg_9814247230e5fcb2107e",
        "44132019_T002/C2": "pkg_ba1ede28b18df72a5417",
    }


def test_replay_command_prints_the_released_graph() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "reqbench.cli.main", "takeover", "replay", str(FIXTURE)],
        capture_output=True,
        timeout=120,
    )
    assert res.returncode == 0
    assert res.stdout == (STAGE2 / "requirement_state_graph.json").read_bytes()


def test_instance_manifest_records_the_released_condition_hashes_and_active_rqs(built: Path) -> None:
    ours = json.loads((built / "rq_instance_manifest.json").read_text())
    released = json.loads((STAGE2 / "rq_instance_manifest.json").read_text())
    assert ours["rq_counts"] == released["rq_counts"] and ours["total_instance_count"] == 6
    for mine, theirs in zip(ours["targets"], released["targets"], strict=True):
        assert mine["conditions"] == theirs["conditions"]
        assert mine["target_fingerprint"] == theirs["target_fingerprint"]
        assert {rq: i["file"] for rq, i in mine["instances"].items()} == {
            rq: i["file"] for rq, i in theirs["instances"].items()
        }


# --- RQ4 (FORMAT.md (g.2)) -------------------------------------------------------------------------

RQ4_EXAMPLE = REFERENCE / "rq4_examples" / "Code Environment" / "42204309" / "targets" / "T001_before_114"
SCHEMAS = REFERENCE / "schemas" / "schema"


def test_without_code_environments_nothing_of_rq4_is_built_and_the_package_rq4_block_is_the_released_one(
    built: Path,
) -> None:
    assert not (built / "RQ4").exists() and not (built / "rq4_agent_judge_registry.json").exists()
    ours = json.loads((built / "rq_agent_inputs" / RELEASE / "44132019" / "44132019_T001" / "C2" / "private"
                       / "package_manifest.json").read_text())
    released = json.loads((RELEASED_PKG / "44132019_T001" / "C2" / "private" / "package_manifest.json").read_text())
    for key in ("rq4", "execution_rq", "repository", "phase_gate_policy", "reasoning_active_rqs"):
        assert ours[key] == released[key], key


def test_released_environment_manifest_is_read_and_matched_by_folder_name(tmp_path: Path) -> None:
    from reqbench.protocols.takeover.rq4_delivery.environments import read_environment

    folder = tmp_path / "T001_before_114"
    folder.mkdir()
    (folder / "manifest.json").write_bytes((RQ4_EXAMPLE / "manifest.json").read_bytes())
    env = read_environment(folder)
    assert (env.target_suffix, env.before_message_id) == ("T001", "114")
    assert env.manifest["target_id"] == "42204309_T001"
    assert not env.included  # no criteria proposal next to the released manifest
    assert any("criteria.json" in b for b in env.blockers)


@pytest.fixture(scope="module")
def built_with_environments(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """44132019 with a (synthetic) code environment for both released targets."""
    import shutil

    root = tmp_path_factory.mktemp("repro-rq4")
    envs = root / "code_environment" / "targets"
    for suffix, msg in (("T001", 23), ("T002", 34)):
        env = envs / f"{suffix}_before_{msg}"
        (env / "repository" / "scripts").mkdir(parents=True)
        (env / "repository" / "scripts" / "build.py").write_text("raise SystemExit(0)\n")
        (env / "repository" / "scripts" / "check.py").write_text("raise SystemExit(0)\n")
        (env / "manifest.json").write_text(json.dumps({"target_id": f"44132019_{suffix}", "before_message_id": msg}))
        (env / "criteria.json").write_text(json.dumps({
            "downstream_disposition": "PROCEED_TO_VALIDATOR_AUTHORING",
            "acceptance_criteria": [{"criterion_id": "AC001", "scope": "model", "statement": "The model is updated.",
                                     "observables": ["workbook"], "negative_cases": []}],
        }))
    out = root / "out"
    res = subprocess.run(
        [sys.executable, "-m", "reqbench.cli.main", "takeover", "build", str(FIXTURE), "--out", str(out),
         "--input-release", RELEASE, "--code-environment", str(envs)],
        capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stderr
    shutil.rmtree(root / "code_environment")  # the registry keeps only paths and hashes
    return out


def test_rq4_eligibility_follows_the_released_rq3_gold(built_with_environments: Path) -> None:
    reg = json.loads((built_with_environments / "rq4_agent_judge_registry.json").read_text())
    for target in reg["targets"]:
        released = json.loads((STAGE2 / "RQ3" / f"{target['target_id']}_RQ3.json").read_text())
        for c in ("C1", "C2"):
            gold = released["construction_gold"]["final_gold_by_condition"][c]["decision"]
            assert target["condition_eligibility"][c]["rq3_gold_decision"] == gold
            assert target["condition_eligibility"][c]["rq4_eligible"] == (gold == "ACT")
    # T001 is the released CLARIFY target, T002 the ACT one
    assert [t["condition_eligibility"]["C1"]["status"] for t in reg["targets"]] == ["EXCLUDED", "ELIGIBLE"]


def test_registry_and_judge_results_follow_the_released_schemas(built_with_environments: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from reqbench.protocols.takeover.rq4_delivery.scoring import judge_result_problems

    reg = json.loads((built_with_environments / "rq4_agent_judge_registry.json").read_text())
    jsonschema.validate(reg, json.loads((SCHEMAS / "rq4_agent_judge_registry.schema.json").read_text()))
    result_schema = json.loads((SCHEMAS / "rq4_agent_judge_result.schema.json").read_text())
    good = {"schema_version": "rq4-agent-judge-result-v1", "target_id": "44132019_T002", "judge_summary": "s",
            "criteria": [{"criterion_id": "AC001", "verdict": "PASS",
                          "evidence": [{"operation": "ran", "observation": "ok", "artifact": None}]}]}
    variants = [good, {**good, "overall": "PASS"}, {**good, "criteria": []},
                {**good, "criteria": [{**good["criteria"][0], "verdict": "YES"}]},
                {**good, "criteria": [{**good["criteria"][0], "evidence": []}]},
                {**good, "criteria": [{**good["criteria"][0], "criterion_id": "C1"}]}]
    for v in variants:  # our reader accepts exactly what the released schema accepts
        released_ok = jsonschema.Draft202012Validator(result_schema).is_valid(v)
        ours_ok = not judge_result_problems(v, "44132019_T002", [c["criterion_id"] for c in v["criteria"]])
        assert ours_ok == released_ok, v
    # the RQ1-RQ3 instances are unchanged apart from RQ4 in applicable_rqs
    for n, t in ((1, "T002"), (3, "T001")):
        ours = json.loads((built_with_environments / f"RQ{n}" / f"44132019_{t}_RQ{n}.json").read_text())
        released = json.loads((STAGE2 / f"RQ{n}" / f"44132019_{t}_RQ{n}.json").read_text())
        assert ours["applicable_rqs"] == [*released["applicable_rqs"], "RQ4"]
