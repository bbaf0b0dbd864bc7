"""Threat: a task's checks silently run against the harness's own Python instead of the task's environment,
so a package only the environment has is missing and every submission scores the same 0 -- or a forged
environment-less run looks like the real one.

A journey instance declares a task environment (a venv with ``six``, which reqbench's venv lacks) in its
``instance.yaml``, and its hidden tests import ``six``. Through `reqbench.api.run`: the reference passes
every test, the null agent fails, the run records the environment's key; the same instance without its
environment block fails its hidden tests with the import error named, never a silent pass or a silent 0; and
a resume on a changed environment is refused.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench import api
from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.errors import InputError
from reqbench.core.store import RunStore
from reqbench.protocols.journey.row_result import JourneyResult
from tests.protocols.journey.conftest import SPEC, build_instance
from tests.security.envbuild import BLOCK

SIX_TEST = "import six\n\nimport calc\n\n\ndef test_add():\n    assert six.PY3 and calc.add(2, 3) == 5\n"


def _instance(root: Path, block: dict[str, Any] | None) -> Path:
    spec = copy.deepcopy(SPEC)
    if block is not None:
        spec["environment"] = block
    inst = build_instance(root, spec)
    (inst / "hidden" / "tests_hidden" / "test_base.py").write_text(SIX_TEST)
    return inst


def _final(run_dir: Path) -> tuple[JourneyResult, dict[str, Any]]:
    with RunStore.open(run_dir, read_only=True) as store:
        ((_, outcome),) = store.outcomes()
        return JourneyResult.of(outcome.result), store.meta.provenance


@pytest.mark.slow
def test_checks_run_in_the_tasks_environment_reference_passes_null_fails(
        require_bwrap: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    inst = _instance(tmp_path / "task", BLOCK)

    api.run(inst, agent="reference", out=tmp_path / "ref", conditions=["single-shot"])
    reference, provenance = _final(tmp_path / "ref")
    assert reference.final_f2p == 1.0 and reference.final_p2p == 1.0, reference
    assert provenance["environments"]["tasks"] == {"calc": provenance["environments"]["tasks"]["calc"]}
    assert len(provenance["environments"]["tasks"]["calc"]) == 64

    api.run(inst, agent="null", out=tmp_path / "null", conditions=["single-shot"])
    null, _ = _final(tmp_path / "null")
    assert null.final_f2p == 0.0 and null.final_p2p == 1.0, null  # add() was there; six imported

    spec = yaml.safe_load((inst / "instance.yaml").read_text())
    spec["environment"]["python"]["requirements"] = ["six==1.16.0", "pytest==7.4.4"]
    (inst / "instance.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(InputError, match="environment"):
        api.run(inst, agent="reference", out=tmp_path / "ref", conditions=["single-shot"], resume=True)


def test_without_its_environment_the_import_error_is_named(require_bwrap: None, tmp_path: Path) -> None:
    """The same hidden test on the host's Python: a FAIL that names the missing module and the collection
    error, not a pass and not an unexplained 0."""
    inst = _instance(tmp_path / "task", None)
    check = Check(name="hidden", command="{pytest} -q {hidden}/tests_hidden/test_base.py", timeout_seconds=120)
    result = run_check(check, inst / "repo", inst / "hidden")
    assert result.status is CheckStatus.FAIL
    assert result.collection_errors and "collection errors" in result.detail
    assert "could not import 'six' in the host's Python (no task environment)" in result.detail
    assert "No module named 'six'" in result.stdout_tail + result.stderr_tail
