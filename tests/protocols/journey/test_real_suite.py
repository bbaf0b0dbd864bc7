"""The real journey suite (`suites/real/journey`): instances staged along real PyPI release histories.

Offline: every instance names pinned `pypi:` trees and `pypi-diff:` reference changes with written
requests; the sizes computed from the files are printed and checked against issue #18's floor (>= 2
instances, >= 20 subtasks, >= 200 F2P nodes). With PyPI (skipped otherwise): the fast instance cut to
its first subtask runs one `reference` and one `null` session (Final F2P 1.0 and 0.0). Files and lines of
every reference patch and the calibration of every instance fetch every release step (one hidden run per
step): `integration` (and `make demo-real`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reqbench.core.workspace.pypi_diff import parse as parse_diff
from reqbench.core.workspace.pypi_diff import touched
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.metrics import final_f2p
from reqbench.protocols.journey.models import Instance, load_suite
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

from .sessions import control, run

REAL = Path(__file__).resolve().parents[3] / "suites" / "real" / "journey"
FAST = "cachetools"  # the instance whose first subtask runs in `make test` (its tests take seconds)


def _releases(inst: Instance) -> list[str]:
    """Every release the instance fetches: its base, hidden-test release and both ends of each change."""
    reqs = [inst.spec.repo.removeprefix("pypi:").split("#")[0],
            inst.spec.testbed.hidden_tests.removeprefix("pypi:").split("#")[0]]
    for sub in inst.subtasks:
        diff = parse_diff(sub.reference_patch)
        reqs += [diff.old_requirement, diff.new_requirement]
    return list(dict.fromkeys(reqs))


def _need_suite() -> list[Instance]:
    instances = load_suite(REAL)[1]
    need_release(*(req for inst in instances for req in _releases(inst)))
    return instances


def test_real_instances_name_pinned_releases_offline() -> None:
    _, instances = load_suite(REAL)
    assert len(instances) >= 2
    for inst in instances:
        assert inst.spec.repo.startswith("pypi:") and "#sha256=" in inst.spec.repo
        assert inst.spec.testbed.hidden_tests.startswith("pypi:")
        assert "#sha256=" in inst.spec.testbed.hidden_tests
        assert inst.spec.testbed.hidden_include == ["tests"]
        for sub in inst.subtasks:
            assert parse_diff(sub.reference_patch).sha256 is not None, sub.id
            assert "TODO" not in sub.request + sub.plain, sub.id  # requests are written, not placeholders


def test_sizes_from_the_files() -> None:
    """Instances, subtasks and node counts from the instance files (offline; issue #18's floor)."""
    instances = load_suite(REAL)[1]
    print()
    for inst in instances:
        print(f"{inst.id}: {len(inst.subtasks)} subtasks, {len(inst.whole_f2p)} F2P, {len(inst.whole_p2p)} P2P "
              f"({' '.join(f'{s.id}:{len(s.f2p)}' for s in inst.subtasks)})")
        assert inst.whole_p2p
    subtasks = sum(len(inst.subtasks) for inst in instances)
    f2p = sum(len(inst.whole_f2p) for inst in instances)
    p2p = sum(len(inst.whole_p2p) for inst in instances)
    print(f"real journey suite: {len(instances)} instances, {subtasks} subtasks, {f2p} F2P, {p2p} P2P")
    assert len(instances) >= 2 and subtasks >= 20 and f2p >= 200


@pytest.mark.integration
@pytest.mark.timeout(1800)  # whole real suites: minutes on a busy machine
def test_reference_sizes(pypi_cache: Path) -> None:  # noqa: F811
    """Files and lines of every reference patch (the upstream changes; fetches every release step)."""
    print()
    for inst in _need_suite():
        files, added, removed = set(), 0, 0
        for sub in inst.subtasks:
            f, a, r = touched(inst.patch_text(sub))
            files |= set(f)
            added, removed = added + a, removed + r
            print(f"  {inst.id} {sub.id} {sub.reference_patch.split('#')[0].removeprefix('pypi-diff:')}: "
                  f"{len(f)} files +{a}/-{r}")
            assert a + r > 0
        print(f"{inst.id}: reference {len(files)} files +{added}/-{removed}")


@pytest.fixture
def first_subtask(tmp_path: Path, pypi_cache: Path) -> Path:  # noqa: F811
    """The FAST instance cut to its first subtask (same base, hidden tests and reference change)."""
    inst = next(i for i in load_suite(REAL)[1] if i.id == FAST)
    need_release(*_releases(inst)[:4])  # base, hidden-test release, both ends of T1
    spec = inst.spec.model_dump(mode="json")
    first = spec["stages"][0]
    spec["stages"] = [{**first, "subtasks": first["subtasks"][:1]}]
    spec["stages"][0]["subtasks"][0]["p2p_include"] = []
    out = tmp_path / "cut"
    out.mkdir()
    (out / "instance.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return out


@pytest.mark.parametrize(("agent", "want"), [("reference", 1.0), ("null", 0.0)])
def test_real_first_subtask_reference_full_marks_null_zero(first_subtask: Path, tmp_path: Path, agent: str,
                                                           want: float) -> None:
    inst, rec = run(first_subtask, "software-architect", control(agent), tmp_path / agent, max_turns=12)
    assert final_f2p(rec, inst) == want


@pytest.mark.integration
@pytest.mark.timeout(1800)  # whole real suites: minutes on a busy machine
def test_every_real_instance_calibrates(pypi_cache: Path) -> None:  # noqa: F811
    for inst in _need_suite():
        report = calibrate(inst)
        print(f"{inst.id}: {len(report.subtasks)} subtasks, {report.test_runs} test runs, ok={report.ok}")
        assert report.ok, [f.sentence() for f in report.findings[:10]]
