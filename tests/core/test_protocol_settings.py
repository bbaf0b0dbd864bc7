"""Suite v2 settings and results: ``--agent-opt PROTOCOL.KEY`` validated against the protocol's
`options_model` before anything is created; every row result fits its `result_model`; `reqbench schema`
prints both for every protocol."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from reqbench.core.execute.runner import _check_outcome
from reqbench.core.execute.types import RowOutcome, RowStatus
from reqbench.protocols.specpath.row_result import SpecpathResult

PROTOCOLS = ("takeover", "specpath", "journey", "pace")


def _reqbench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize(("opt", "key", "rule"), [
    ("specpath.agent_timout=3", "specpath.agent_timout", "unknown option; known: specpath.agent_timeout"),
    ("specpath.agent_timeout=-1", "specpath.agent_timeout", "greater than 0"),
    ("specpath.allow_uncalibrated=maybe", "specpath.allow_uncalibrated", "valid boolean"),
])
def test_a_mistyped_protocol_option_is_refused_naming_the_key_before_anything_is_created(
        tmp_path: Path, opt: str, key: str, rule: str) -> None:
    out = tmp_path / "run"
    proc = _reqbench("run", "demo:specpath", "--agent", "reference", "--agent-opt", opt, "--out", str(out),
                     cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"--agent-opt {key}" in proc.stderr and rule in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_schema_prints_the_options_and_row_result_models_of_every_protocol(tmp_path: Path, protocol: str) -> None:
    for kind in ("options", "row-result"):
        proc = _reqbench("schema", f"{protocol}-{kind}", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        schema = json.loads(proc.stdout)
        assert schema["type"] == "object" and schema["description"]
        assert all(p.get("description") for p in schema.get("properties", {}).values())
    assert json.loads(_reqbench("schema", f"{protocol}-options", cwd=tmp_path).stdout)["additionalProperties"] is False


def test_a_result_that_does_not_fit_the_protocols_result_model_is_a_protocol_bug() -> None:
    good = RowOutcome(RowStatus.SCORED, {"family": "f", "outcome": "success", "signature": [1]}, reason="passed")
    _check_outcome(good, "specpath.run_row", SpecpathResult)
    bad = RowOutcome(RowStatus.SCORED, {"family": "f", "outcome": "sort of", "signature": [1]}, reason="passed")
    with pytest.raises(ValidationError, match="outcome"):
        _check_outcome(bad, "specpath.run_row", SpecpathResult)
