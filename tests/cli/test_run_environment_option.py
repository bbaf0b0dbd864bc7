"""``reqbench run --environment FILE|SPEC``: validated before anything is created (one clear error naming
file, item and rule; exit 2), built once before the rows, recorded with the run and kept by a resume."""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.store import RunStore
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite


def _suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}], conditions=("A",))


def test_bad_inline_json_is_one_clear_error_and_creates_nothing(tmp_path: Path) -> None:
    proc = reqbench("run", str(_suite(tmp_path)), "--agent", "reference", "--out", str(tmp_path / "run"),
                    "--environment", '{"python": ', REQBENCH_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 2, proc.stderr
    assert "--environment" in proc.stderr and "valid JSON" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_a_bad_block_in_a_file_names_the_file_the_item_and_the_rule(tmp_path: Path) -> None:
    block = tmp_path / "env.yaml"
    block.write_text("environment:\n  python:\n    interpreter: python2\n")
    proc = reqbench("run", str(_suite(tmp_path)), "--agent", "reference", "--out", str(tmp_path / "run"),
                    "--environment", str(block), REQBENCH_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 2, proc.stderr
    assert "env.yaml" in proc.stderr and "environment.python" in proc.stderr and "'python2'" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_the_environment_is_recorded_and_a_resume_keeps_it(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    spec = json.dumps({"setup": ["true"]})
    out = tmp_path / "run"
    proc = reqbench("run", str(_suite(tmp_path)), "--agent", "reference", "--out", str(out), "--quiet",
                    "--environment", spec, REQBENCH_CACHE=cache, timeout=600)
    assert proc.returncode == 0, proc.stderr
    with RunStore.open(out, read_only=True) as store:
        key = store.meta.provenance["environments"]["run"]
        assert len(key) == 64 and store.meta.options["environment"] == {"setup": ["true"]}
    changed = reqbench("run", "--resume", str(out), "--environment", json.dumps({"setup": ["false"]}),
                       REQBENCH_CACHE=cache)
    assert changed.returncode == 2 and "--environment cannot change a run being resumed" in changed.stderr
    again = reqbench("run", "--resume", str(out), "--quiet", REQBENCH_CACHE=cache, timeout=600)
    assert again.returncode == 0, again.stderr
