"""The real PACE suite (`suites/real/pace`): cases on real libraries, reference = the maintainers' change.

Offline: every case loads and passes the shallow checks (frozen, pinned sources, provenance, >= 25 Code
Points with integration/registration points) without fetching anything. With PyPI (skipped otherwise):
sizes computed from the files are printed and checked; one case runs end to end with the control agents
(reference 100, null 0) and its negative controls; the whole suite is `integration` (and `make
demo-real`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.execute.types import RunOptions
from reqbench.core.workspace import pypi_diff
from reqbench.protocols.pace.case import contract_hash, load_suite
from reqbench.protocols.pace.controls import run_controls
from reqbench.protocols.pace.score import Scorer
from reqbench.protocols.pace.sizes import case_size
from reqbench.protocols.pace.validate import validate_path
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

REAL = Path(__file__).resolve().parents[3] / "suites" / "real" / "pace"
QUICK = "cachetools-stampede-condition"
WRITTEN_HERE = {"semver-release-tags"}  # base and change written for the suite; its real code comes from npm


def _releases(case_dir: Path | None = None) -> list[str]:
    cases = load_suite(case_dir or REAL)[1]
    out = []
    for case in cases:
        if case.id in WRITTEN_HERE:
            continue
        diff = pypi_diff.parse(case.spec.reference_patch)
        out += [diff.old_requirement, diff.new_requirement]
    return out


def test_real_suite_is_well_formed_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "empty-cache"))  # nothing can come from a cache
    assert validate_path(REAL, deep=False) == []
    cases = load_suite(REAL)[1]
    assert len(cases) >= 3
    assert len({c.spec.base.split("==")[0] for c in cases}) >= 2  # more than one library
    for case in cases:
        prov = case.spec.provenance
        assert prov is not None and all((prov.project, prov.licence, prov.base, prov.change, prov.adapted))
        assert case.spec.frozen_hash == contract_hash(case)
        if case.id in WRITTEN_HERE:  # the JavaScript case: its npm dependencies are its environment
            assert case.spec.language == "javascript" and case.spec.environment is not None
            assert (case.dir / "base" / "package-lock.json").is_file()
            continue
        assert case.spec.base.startswith("pypi:") and case.spec.base_sha256
        diff = pypi_diff.parse(case.spec.reference_patch)
        assert diff.sha256 is not None and case.spec.base == f"pypi:{diff.old_requirement}"
        assert len(case.points) >= 25
        assert any(p.kind in ("integration", "registration") for p in case.points)
        assert any(p.contract is not None for p in case.points)  # L0 structural checks
        assert {p.provenance.value for p in case.points} >= {"explicit", "derived"}
    assert not (tmp_path / "empty-cache").exists()


def test_sizes_from_the_files(pypi_cache: Path) -> None:  # noqa: F811
    need_release(*_releases())
    sizes = [case_size(c) for c in load_suite(REAL)[1]]
    print()
    for s in sizes:
        print(f"{s.case}: {s.files} files, +{s.added}/-{s.removed} lines, {s.points} Code Points "
              f"({s.criteria} criteria, {s.integration_points} integration/registration)")
    assert all(s.points >= 25 for s in sizes if s.case not in WRITTEN_HERE)
    assert any(s.files >= 8 and s.changed >= 800 for s in sizes)


def _headline(suite: Path, agent: str, out: Path) -> float:
    store, loaded = run_suite(suite, RunOptions(agent=agent), out, resume=False, quiet=True)
    with store:
        value = loaded.summarize(store.outcomes()).headline[f"{agent}/prd score"]
    return float(value)  # type: ignore[arg-type]


def test_one_real_case_end_to_end(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    case_dir = REAL / QUICK
    need_release(*_releases(case_dir))
    assert validate_path(case_dir) == []
    assert _headline(case_dir, "reference", tmp_path / "ref") == 100.0
    assert _headline(case_dir, "null", tmp_path / "null") == 0.0
    case = load_suite(case_dir)[1][0]
    controls = run_controls(Scorer(case), [])
    assert controls["reference"] == 100.0
    assert controls["empty"] == 0.0 and controls["unrelated"] == 0.0
    assert controls["identifier_only"] is not None and controls["identifier_only"] <= 10


@pytest.mark.integration
@pytest.mark.timeout(1800)  # whole real suites: minutes on a busy machine
def test_whole_real_suite_validates_and_brackets(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release(*_releases())
    assert validate_path(REAL) == []
    assert _headline(REAL, "reference", tmp_path / "ref") == 100.0
    assert _headline(REAL, "null", tmp_path / "null") == 0.0
    cases = load_suite(REAL)[1]
    for case in cases:
        out = run_controls(Scorer(case), cases)
        assert out["reference"] == 100.0, case.id
        assert out["empty"] == 0.0 and out["unrelated"] == 0.0, case.id
        assert out["identifier_only"] <= 10, case.id
        assert out["cross_case"] is None, case.id  # other cases' patches never apply to this base
