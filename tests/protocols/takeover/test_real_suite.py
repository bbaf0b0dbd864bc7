"""The real takeover suite (`suites/real/takeover`): a 66-message client conversation about a vendored copy of
tabulate 0.9.0, whose repository is the release's sdist fetched at run time.

Offline: the suite names a pinned, hash-checked PyPI repository, the conversation has >= 60 messages, every
event type of the protocol occurs, >= 6 targets deliver code with hidden tests, and no hidden test is in
the repository the agent gets. With PyPI (skipped otherwise): sizes computed from the files are printed;
one target is admitted by the real checks and runs end to end with the control agents (reference: complete
delivery 1, null: 0); the whole suite under every condition is `integration` (and `make demo-real`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.takeover.annotation.loading import validate_project
from reqbench.protocols.takeover.annotation.models import EventType
from reqbench.protocols.takeover.dataset.sizes import suite_size
from reqbench.protocols.takeover.suite import PROTOCOL
from reqbench.protocols.takeover.suite_file import load_suite
from tests.protocols.takeover.takeover_suite_factory import mini_suite
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

REAL = Path(__file__).resolve().parents[3] / "suites" / "real" / "takeover"
RELEASE = "tabulate==0.9.0"
QUICK = "T001"  # message 30: truncated cells end in three ASCII dots within the limit


def test_real_suite_shape_offline() -> None:
    suite = load_suite(REAL)
    assert suite.repository.startswith(f"pypi:{RELEASE}#sha256=")
    assert not (REAL / "repo").exists()  # nothing of the library is committed
    assert validate_project(REAL / suite.project) == []
    size = suite_size(REAL)
    assert size.messages >= 60
    assert set(size.events_by_type) == set(EventType.__members__)
    assert size.delivery_targets >= 6 and size.targets > size.delivery_targets  # plus a CLARIFY target
    assert all(n >= 2 for n in size.hidden_tests_by_target.values())
    for d in suite.delivery:
        assert (REAL / d.hidden / "test_takeover_target.py").is_file()
        assert (REAL / d.reference_patch).is_file() and d.negative_patches


def test_hidden_tests_never_reach_the_repository_offline() -> None:
    """The agent's repository is the sdist plus timeline and reference patches: none of them carries a
    hidden test file or its name."""
    suite = load_suite(REAL)
    hidden = {p.name for d in suite.delivery for p in (REAL / d.hidden).iterdir()}
    patches = [REAL / t.patch for t in suite.timeline] + [REAL / d.reference_patch for d in suite.delivery]
    for patch in patches:
        text = patch.read_text(encoding="utf-8")
        assert not any(name in text for name in hidden), patch.name


def test_sizes_from_the_files(pypi_cache: Path) -> None:  # noqa: F811
    need_release(RELEASE)
    size = suite_size(REAL, with_repository=True)
    print()
    print(f"{size.suite}: {size.messages} messages ({size.client_messages} from the client), {size.atoms} atoms, "
          f"{size.events} events {size.events_by_type}")
    print(f"  {size.targets} targets, {size.delivery_targets} with code delivery, {size.hidden_tests} hidden tests "
          f"{size.hidden_tests_by_target}")
    print(f"  repository: {size.repository_files} files, {size.repository_python_lines} Python lines; "
          f"{size.timeline_patches} timeline patches; references touch {size.reference_files} files "
          f"+{size.reference_added}/-{size.reference_removed}")
    assert size.repository_python_lines is not None and size.repository_python_lines > 5000
    assert size.hidden_tests >= 6 * 2


def _delivery(suite: Path, agent: str, out: Path, conditions: tuple[str, ...] = ()) -> float:
    store, proto = run_suite(suite, RunOptions(agent=agent, conditions=conditions, concurrency=2), out,
                             resume=False, quiet=True)
    with store:
        return float(proto.summarize(store.outcomes()).headline["C1 delivery"])  # type: ignore[arg-type]


def test_one_real_target_admitted_and_bracketed(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release(RELEASE)
    suite = mini_suite(tmp_path / "suite", (QUICK,), source=REAL)
    assert PROTOCOL.validate(suite) == []  # project rules + admission: initial B/T/R = PASS/FAIL/PASS, ...
    assert _delivery(suite, "reference", tmp_path / "ref", ("C1",)) == 1.0
    assert _delivery(suite, "null", tmp_path / "null", ("C1",)) == 0.0


@pytest.mark.integration
@pytest.mark.timeout(1800)  # whole real suites: minutes on a busy machine
def test_whole_real_suite_admitted_and_bracketed(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release(RELEASE)
    assert PROTOCOL.validate(REAL) == []
    assert _delivery(REAL, "reference", tmp_path / "ref") == 1.0
    assert _delivery(REAL, "null", tmp_path / "null") == 0.0
