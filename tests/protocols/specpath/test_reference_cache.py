"""`validate`'s reference check remembers passing families by content (`core.validation_cache`).

Threats guarded: a remembered pass reused after the hidden tests (or anything else the check reads)
changed; a failing reference remembered, so a fixed family would keep its problem (or a broken one would
pass); a second validation of an unchanged suite running every verifier again. Real verifier runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.library_progress import watching
from reqbench.protocols.specpath.family import load_family
from reqbench.protocols.specpath.reference_check import reference_problems


class Lines:
    def __init__(self) -> None:
        self.ran: list[str] = []
        self.cached: list[str] = []

    def started(self, name: str, total: int, detail: str) -> None:
        pass

    def advanced(self, name: str, done: int, total: int, label: str, seconds: float | None) -> None:
        (self.cached if seconds is None else self.ran).append(label)


def check(roots: list[Path]) -> tuple[list[str], Lines]:
    lines = Lines()
    with watching(lines):
        problems = reference_problems([load_family(r) for r in roots])
    return problems, lines


def test_passes_are_remembered_by_content_and_failures_never(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    roots = []
    for name in ("slugkit", "kvconf"):
        roots.append(tmp_path / name)
        shutil.copytree(bundled_suite("specpath") / name, roots[-1])

    problems, lines = check(roots)
    assert problems == [] and sorted(lines.ran) == ["kvconf", "slugkit"] and lines.cached == []
    assert len(list((tmp_path / "cache" / "specpath-reference").glob("*.json"))) == 2

    problems, lines = check(roots)
    assert problems == [] and lines.ran == [] and sorted(lines.cached) == ["kvconf", "slugkit"]

    probes = roots[0] / "hidden" / "test_probes.py"
    probes.write_text(probes.read_text(encoding="utf-8").replace(
        "def test_digits_are_kept():", "def test_digits_are_kept():\n    assert False\n", 1), encoding="utf-8")
    for _ in range(2):  # the changed family runs again, and its failure is not remembered
        problems, lines = check(roots)
        assert len(problems) == 1 and "test_digits_are_kept" in problems[0] and "slugkit" in problems[0]
        assert lines.ran == ["slugkit"] and lines.cached == ["kvconf"]


def test_a_cache_that_cannot_be_written_remembers_nothing_and_fails_nothing(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    """``$REQBENCH_CACHE`` naming a file (or a full, read-only disk): the check runs, passes, and runs
    again next time -- it is a cache, not an input."""
    not_a_folder = tmp_path / "cache-file"
    not_a_folder.write_text("")
    monkeypatch.setenv("REQBENCH_CACHE", str(not_a_folder))
    root = bundled_suite("specpath") / "slugkit"
    for _ in range(2):
        problems, lines = check([root])
        assert problems == [] and lines.ran == ["slugkit"] and lines.cached == []
