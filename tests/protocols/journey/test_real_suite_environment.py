"""The real journey instance that brings its own environment (`suites/real/journey/humanize`): humanize's
tests import freezegun, which reqbench does not install, and humanize reads its version from installed
metadata. In its environment `reference` gets Final F2P 1.0 and `null` 0.0; without its `environment:`
block the same instance is refused before any row runs (its calibration fails: the hidden tests cannot
run), never scored as a silent 0.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.errors import ReqbenchError
from reqbench.core.execute.types import RunOptions
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

INSTANCE = Path(__file__).resolve().parents[3] / "suites" / "real" / "journey" / "humanize"
OPTIONS = {"conditions": ("software-architect",)}
pytestmark = pytest.mark.slow


def _final_f2p(suite: Path, agent: str, out: Path) -> float:
    store, loaded = run_suite(suite, RunOptions(agent=agent, **OPTIONS), out, resume=False, quiet=True)
    with store:
        headline = loaded.summarize(store.outcomes()).headline
    return float(str(headline["software-architect final F2P/P2P"]).split("/")[0])


@pytest.mark.parametrize(("agent", "want"), [("reference", 1.0), ("null", 0.0)])
def test_in_its_environment_reference_full_marks_null_zero(pypi_cache: Path, tmp_path: Path,  # noqa: F811
                                                           agent: str, want: float) -> None:
    need_release("humanize==4.9.0", "humanize==4.10.0")
    assert _final_f2p(INSTANCE, agent, tmp_path / agent) == want


def test_without_its_environment_the_run_is_refused(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release("humanize==4.9.0", "humanize==4.10.0")
    bare = tmp_path / "humanize"
    shutil.copytree(INSTANCE, bare)
    text = (bare / "instance.yaml").read_text(encoding="utf-8")
    (bare / "instance.yaml").write_text(re.sub(r"(?ms)^environment:.*?\n(?=repo:)", "", text), encoding="utf-8")
    assert "environment:" not in (bare / "instance.yaml").read_text(encoding="utf-8")
    with pytest.raises(ReqbenchError, match="validation problem"):
        run_suite(bare, RunOptions(agent="reference", **OPTIONS), tmp_path / "run", resume=False, quiet=True)
    assert not (tmp_path / "run").exists(), "nothing written"
