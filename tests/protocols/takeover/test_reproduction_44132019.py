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
