"""The real journey suite (`suites/real/journey`): instances staged along real PyPI release histories.

Offline: every instance names pinned `pypi:` trees and `pypi-diff:` reference changes. With PyPI (skipped
otherwise): sizes computed from the files are printed and checked. Calibration of every instance (one
hidden run per release step, ~30 s each on a loaded machine) is `integration` (and `make demo-real`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.workspace.pypi_diff import touched
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.models import load_suite
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

REAL = Path(__file__).resolve().parents[3] / "suites" / "real" / "journey"
RELEASES = ("more-itertools==10.7.0", "more-itertools==10.8.0", "more-itertools==11.0.0",
            "more-itertools==11.2.1")


def test_real_instances_name_pinned_releases_offline() -> None:
    _, instances = load_suite(REAL)
    assert instances
    for inst in instances:
        assert inst.spec.repo.startswith("pypi:") and "#sha256=" in inst.spec.repo
        assert inst.spec.environment.hidden_tests.startswith("pypi:")
        assert inst.spec.environment.hidden_include == ["tests"]
        assert all(sub.reference_patch.startswith("pypi-diff:") for sub in inst.subtasks)


def test_sizes_from_the_files(pypi_cache: Path) -> None:  # noqa: F811
    need_release(*RELEASES)
    _, instances = load_suite(REAL)
    print()
    for inst in instances:
        files, added, removed = set(), 0, 0
        for sub in inst.subtasks:
            f, a, r = touched(inst.patch_text(sub))
            files |= set(f)
            added, removed = added + a, removed + r
        print(f"{inst.id}: {len(inst.subtasks)} subtasks, {len(inst.whole_f2p)} F2P, {len(inst.whole_p2p)} P2P, "
              f"reference {len(files)} files +{added}/-{removed}")
        assert len(inst.whole_f2p) >= 150 and len(inst.whole_p2p) >= 500
        assert added + removed >= 800


@pytest.mark.integration
def test_every_real_instance_calibrates(pypi_cache: Path) -> None:  # noqa: F811
    need_release(*RELEASES)
    for inst in load_suite(REAL)[1]:
        report = calibrate(inst)
        assert report.ok, [f.sentence() for f in report.findings[:10]]
