"""A PACE case whose reference patch is an upstream change between two releases (``pypi-diff:``).

Offline throughout: two releases of a tiny project sit in a private cache (`fake_releases`). Loading and
shallow validation never read the change; freezing covers the pinned spec; deep validation fetches it
from the cache; reference and empty patch bracket the score; the rules for a ``pypi-diff:`` reference
(both sdists pinned, base = the first release) are one sentence each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.protocols.pace.case import contract_hash, freeze_case, load_case
from reqbench.protocols.pace.score import Scorer
from reqbench.protocols.pace.validate import validate_path
from tests.protocols.pace.fake_releases import fake_releases, upstream_case


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("REQBENCH_CACHE", str(root))
    return root


def test_loading_and_freezing_read_only_the_spec(cache: Path, tmp_path: Path) -> None:
    case_dir = upstream_case(tmp_path / "case", ("a" * 64, "b" * 64))  # no release in the cache at all
    case = load_case(case_dir)
    assert case.reference_is_upstream and case._reference_text is None
    digest = freeze_case(case_dir)
    assert digest == contract_hash(load_case(case_dir))
    assert validate_path(case_dir, deep=False) == []
    assert not cache.exists()  # nothing was fetched


def test_deep_validation_and_controls_on_the_upstream_change(cache: Path, tmp_path: Path) -> None:
    case_dir = upstream_case(tmp_path / "case", fake_releases(cache))
    freeze_case(case_dir)
    assert validate_path(case_dir) == []
    case = load_case(case_dir)
    assert "+def scale(values, factor):" in case.reference_patch
    assert "toylib/stats.py" in case.reference_patch
    scorer = Scorer(case)
    assert scorer.score(case.reference_patch, "token-overlap").score == 100.0
    assert scorer.score("", "token-overlap").score == 0.0


def test_pypi_diff_reference_rules(cache: Path, tmp_path: Path) -> None:
    shas = fake_releases(cache)
    unpinned = upstream_case(tmp_path / "unpinned", shas, pinned=False)
    freeze_case(unpinned)
    assert validate_path(unpinned, deep=False) == [
        f"{unpinned / 'case.yaml'}: reference_patch: a pypi-diff reference must pin both sdists (&sha256=A,B)"]
    other_base = upstream_case(tmp_path / "other-base", shas)
    text = (other_base / "case.yaml").read_text().replace("base: pypi:toylib==1.0", "base: pypi:toylib==0.9")
    (other_base / "case.yaml").write_text(text)
    freeze_case(other_base)
    assert validate_path(other_base, deep=False) == [
        f"{other_base / 'case.yaml'}: reference_patch: the upstream change starts from toylib==1.0, "
        "but the base is pypi:toylib==0.9"]


def test_a_wrong_pin_is_named_at_deep_validation(cache: Path, tmp_path: Path) -> None:
    shas = fake_releases(cache)
    case_dir = upstream_case(tmp_path / "case", (shas[0], "c" * 64))
    freeze_case(case_dir)
    problems = validate_path(case_dir)
    assert len(problems) == 1 and "reference_patch: " in problems[0] and "sha256 mismatch" in problems[0]
