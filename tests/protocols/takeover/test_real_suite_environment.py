"""The real takeover suite brings its own environment (`suites/real/takeover/suite.yaml`): wcwidth for
tabulate's wide-character tests and numpy for its array tests, both part of the regression gate. In it,
a target is admitted (the existing `test_real_suite` brackets it); without it the same target is refused
before any row runs: the initial repository and the reference give regression FAIL, because the
wide-character tests skip and a skipped test never counts as a pass.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from reqbench.protocols.takeover.run.admission import admission_problems
from reqbench.protocols.takeover.suite import PROTOCOL
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

REAL = Path(__file__).resolve().parents[3] / "suites" / "real" / "takeover"
TARGET = "KESTREL_T001"


def _context(root: Path, cache: Path):  # type: ignore[no-untyped-def]
    return PROTOCOL.load(root).context(cache)  # the release builds under `cache`, never inside the suite


def test_the_suite_declares_what_its_regression_gate_needs() -> None:
    block = yaml.safe_load((REAL / "suite.yaml").read_text(encoding="utf-8"))["environment"]
    pins = {r.split("==")[0] for r in block["python"]["requirements"]}
    assert {"pytest", "wcwidth", "numpy"} <= pins


@pytest.mark.slow
def test_with_it_a_target_is_admitted_and_without_it_refused(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release("tabulate==0.9.0")
    assert admission_problems(_context(REAL, tmp_path / "cache-real"), TARGET) == []
    assert not (REAL / "takeover-cache").exists()
    bare = tmp_path / "takeover"
    shutil.copytree(REAL, bare)
    data = yaml.safe_load((bare / "suite.yaml").read_text(encoding="utf-8"))
    del data["environment"]
    (bare / "suite.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    problems = admission_problems(_context(bare, tmp_path / "cache-bare"), TARGET)
    assert any("initial repository must give regression PASS but gave regression FAIL" in p for p in problems)
    assert any("reference solution must give regression PASS but gave regression FAIL" in p for p in problems)
