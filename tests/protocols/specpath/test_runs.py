"""One matrix row end to end: isolation of the agent workspace and the run-processing classification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from reqbench.core.agents import registry
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowStatus, RunOptions
from reqbench.core.llm.ledger import row_ledger
from reqbench.protocols.specpath.family import load_family
from reqbench.protocols.specpath.runs import forbidden_paths
from reqbench.protocols.specpath.suite import PROTOCOL
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply

GOOD = '''def tally(words):
    counts = {}
    for w in words:
        w = w.lower()
        counts[w] = counts.get(w, 0) + 1
    return counts
'''


@pytest.fixture(autouse=True)
def _spy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "spy", ("tests.protocols.specpath.spy_agent", "make_spy"))


def _run(fam: Path, tmp_path: Path, agent: str, condition: str = "override", **opts):  # type: ignore[no-untyped-def]
    options = RunOptions(agent=agent, agent_options=opts)
    return PROTOCOL.load(fam).run_row(Row("tally", condition, agent, 0), RowContext(options, tmp_path / "work"))


def test_agent_sees_base_repo_and_history_only_never_hidden_tests_or_labels(tally_family: Path,
                                                                           tmp_path: Path) -> None:
    log = tmp_path / "seen.json"
    out = _run(tally_family, tmp_path, "spy", log=str(log), **{"specpath.agent_timeout": "30"})
    seen = json.loads(log.read_text())
    assert seen["files"] == ["SPEC_HISTORY.md", "src/tally/__init__.py"]
    family = load_family(tally_family)
    for atom in [*family.catalog, "counts_words", "test_probes", "activate", "deactivate"]:
        assert atom not in seen["prompt"]
    assert family.histories["override"].turns[1].text in seen["prompt"]
    assert seen["budget"] == 30.0
    assert out.status == RowStatus.SCORED and out.result.reason == "empty_submission"


def test_reference_row_succeeds_and_null_row_is_a_scored_no_patch_failure(tally_family: Path,
                                                                         tmp_path: Path) -> None:
    ref = _run(tally_family, tmp_path / "a", "reference")
    assert ref.status == RowStatus.SCORED
    keys = ("family", "config", "condition", "repeat", "outcome", "signature")
    assert {k: getattr(ref.result, k) for k in keys} == \
        {"family": "tally", "config": "reference", "condition": "override", "repeat": 0,
         "outcome": "success", "signature": [1, 1]}
    assert ref.artifacts["patch"].startswith(b"diff --git a/src/tally/__init__.py")
    null = _run(tally_family, tmp_path / "b", "null", condition="direct")
    assert (null.status, null.result.outcome, null.result.signature) == \
        (RowStatus.SCORED, "failure", None)


def test_conftest_that_would_spoof_the_verifier_is_forbidden_content(tally_family: Path,
                                                                     tmp_path: Path) -> None:
    spoof = "def pytest_runtest_makereport(item, call):\n    pass\n"
    out = _run(tally_family, tmp_path, "spy", write={"conftest.py": spoof, "src/tally/__init__.py": GOOD})
    assert (out.status, out.result.outcome, out.result.reason) == \
        (RowStatus.SCORED, "failure", "forbidden_content")
    assert forbidden_paths("diff --git a/pkg/x.pth b/pkg/x.pth\n", ["**/*.pth"]) == ["pkg/x.pth"]


def test_submission_that_does_not_import_is_an_agent_failure_not_attrition(tally_family: Path,
                                                                           tmp_path: Path) -> None:
    out = _run(tally_family, tmp_path, "spy", write={"src/tally/__init__.py": "def tally(:\n"})
    assert (out.status, out.result.reason, out.result.signature) == \
        (RowStatus.SCORED, "checks_failed", [0, 0])


def test_editing_only_the_history_file_is_no_patch(tally_family: Path, tmp_path: Path) -> None:
    out = _run(tally_family, tmp_path, "spy", write={"SPEC_HISTORY.md": "rewritten"})
    assert out.result.reason == "empty_submission" and out.artifacts["patch"] == b""


@pytest.mark.parametrize(("opts", "status", "reason"), [
    # an adapter's own claim of a provider failure is not evidence: without a recorded failure it is its exit
    ({"status": "provider_error"}, RowStatus.SCORED, "agent_exit"),
    ({"status": "timeout"}, RowStatus.SCORED, "agent_timeout"),
    ({"status": "error"}, RowStatus.SCORED, "agent_exit"),
    ({"cost": 0.5, "specpath.cost_limit": "0.25"}, RowStatus.SCORED, "budget_exhausted"),
])
def test_run_processing_separates_fixed_budget_failures_from_external_invalids(
        tally_family: Path, tmp_path: Path, opts: dict, status: RowStatus, reason: str) -> None:
    out = _run(tally_family, tmp_path, "spy", write={"src/tally/__init__.py": GOOD}, **opts)
    assert (out.status, out.result.reason) == (status, reason)
    assert out.result.outcome == ("invalid" if status == RowStatus.INVALID else "failure")
    assert out.reason == reason


def test_verifier_infrastructure_failure_is_pending_never_scored(tally_family: Path, tmp_path: Path) -> None:
    data = yaml.safe_load((tally_family / "family.yaml").read_text())
    data["verifier"] = {"command": "exit 3"}
    (tally_family / "family.yaml").write_text(yaml.safe_dump(data))
    out = _run(tally_family, tmp_path, "reference")
    assert (out.status, out.result.outcome, out.result.reason) == \
        (RowStatus.PENDING, "pending", "check_infrastructure")
    assert out.reason == "check_infrastructure" and out.artifacts["patch"]


def test_plan_crosses_conditions_and_repeats_and_refuses_unknown_options(tally_family: Path) -> None:
    allow = {"specpath.allow_uncalibrated": "true"}  # the calibration gate has its own test
    rows = PROTOCOL.load(tally_family).plan(RunOptions(agent="null", repeats=2, agent_options=allow))
    assert len(rows) == 14 and {r.repeat for r in rows} == {0, 1}
    assert len({r.key for r in rows}) == 14
    with pytest.raises(InputError, match="unknown condition"):
        PROTOCOL.load(tally_family).plan(RunOptions(agent="null", conditions=("sideways",), agent_options=allow))
    with pytest.raises(InputError, match="specpath.agent_timeout"):
        PROTOCOL.load(tally_family).plan(RunOptions(agent="null", agent_options={"specpath.timeout": "3"}))
    assert PROTOCOL.detect(tally_family) and PROTOCOL.validate(tally_family) == []


def test_submitted_pytest_module_cannot_replace_the_verifier(tally_family: Path, tmp_path: Path) -> None:
    fake = "import sys\nprint('2 passed')\nsys.exit(0)\n"
    out = _run(tally_family, tmp_path, "spy", write={"pytest.py": fake, "src/pytest.py": fake,
                                                      "src/tally/__init__.py": "def tally(w):\n    return {}\n"})
    assert (out.status, out.result.reason, out.result.signature) == \
        (RowStatus.SCORED, "checks_failed", [0, 0])


@pytest.mark.parametrize(("replies", "status", "reason"), [
    ([Reply(status=503)] * 3, RowStatus.INVALID, "provider_error"),
    ([Reply(status=429, retry_after=0)] * 3, RowStatus.INVALID, "provider_rate_limit"),
    ([Reply(status=429, retry_after=0), reply("ok")], RowStatus.SCORED, "passed"),
])
def test_only_a_provider_failure_the_harness_recorded_makes_the_row_invalid(
        tally_family: Path, tmp_path: Path, replies: list[Reply], status: RowStatus, reason: str) -> None:
    with ScriptedOpenAI(replies) as srv, row_ledger():
        out = _run(tally_family, tmp_path, "spy", write={"src/tally/__init__.py": GOOD}, provider=srv.base_url)
    assert (out.status, out.reason) == (status, reason)
