"""Admission of delivery targets: variants in parallel, verdicts cached by content, progress reported.

Threats guarded: a cached verdict reused after a patch it depends on changed; a verdict reached through a
harness error (a check that could not run), or a rejection (perhaps caused by the environment), cached; problems reported in an
order that depends on thread timing; `reqbench validate` silent during a long admission.
The checks themselves are replaced by a recorder (real checks: tests/protocols/takeover/test_takeover_runs.py);
the suite context, keys and cache files are real.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.library_progress import watching
from reqbench.protocols.takeover.run import admission
from reqbench.protocols.takeover.run.context import SuiteContext


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("admission") / "suite"
    shutil.copytree(bundled_suite("takeover"), out)
    return out


class Recorder:
    def __init__(self, harness_error: str = "", problems: bool = True) -> None:
        self.problems = problems
        self.calls: list[str] = []
        self.active = self.max_active = 0
        self.lock = threading.Lock()
        self.harness_error = harness_error

    def __call__(self, ctx, variant, scratch):  # type: ignore[no-untyped-def]
        with self.lock:
            self.calls.append(f"{variant.target_id} {variant.label}")
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(0.05)
        with self.lock:
            self.active -= 1
        if variant.target_id == self.harness_error:
            return [f"{variant.target_id} {variant.label} HARNESS_ERROR"], False
        problem = self.problems and variant.label == "initial repository"
        return ([f"{variant.target_id} problem"] if problem else []), True


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def started(self, name: str, total: int, detail: str) -> None:
        self.lines.append(f"{name} 0/{total}")

    def advanced(self, name: str, done: int, total: int, label: str, seconds: float | None) -> None:
        self.lines.append(f"{name} {done}/{total} {'cached' if seconds is None else 'ran'}")


def test_variants_run_in_parallel_in_a_stable_order_and_a_second_validation_runs_nothing(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    ctx = SuiteContext.load(suite, tmp_path / "work")
    first = Recorder()
    monkeypatch.setattr(admission, "check_variant", first)
    lines = Lines()
    with watching(lines):
        problems = admission.suite_admission_problems(ctx, workers=3)
    targets = [d.target_id for d in ctx.suite.delivery]
    assert problems == [f"{t} problem" for t in targets]  # target order, whatever finished first
    assert len(first.calls) == 3 * len(targets) and first.max_active > 1
    assert lines.lines[0] == f"admission 0/{3 * len(targets)}" and lines.lines[-1].endswith("ran")
    again = Recorder()
    monkeypatch.setattr(admission, "check_variant", again)
    with watching(lines := Lines()):
        assert admission.suite_admission_problems(ctx) == problems
    # admitted variants come from the cache; a variant with a problem is checked again
    assert sorted(again.calls) == sorted(f"{t} initial repository" for t in targets)
    assert sum(line.endswith("cached") for line in lines.lines) == 2 * len(targets)


def test_a_changed_negative_patch_reruns_its_target_only_and_harness_errors_are_not_cached(
        suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    ctx = SuiteContext.load(suite, tmp_path / "work")
    targets = [d.target_id for d in ctx.suite.delivery]
    monkeypatch.setattr(admission, "check_variant", Recorder(harness_error=targets[1], problems=False))
    admission.suite_admission_problems(ctx)
    negative = suite / ctx.delivery(targets[0]).negative_patches[0]
    original = negative.read_text()
    try:
        negative.write_text(original + "\n")
        rerun = Recorder(problems=False)
        monkeypatch.setattr(admission, "check_variant", rerun)
        admission.suite_admission_problems(ctx)
    finally:
        negative.write_text(original)
    assert sorted(c.split()[0] for c in rerun.calls) == sorted([targets[0]] * 3 + [targets[1]] * 3)


def test_reqbench_validate_reports_each_admission_check_on_stderr(suite: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    import os
    import subprocess
    import sys

    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    ctx = SuiteContext.load(suite, tmp_path / "work")
    monkeypatch.setattr(admission, "check_variant", lambda ctx, variant, scratch: ([], True))
    assert admission.suite_admission_problems(ctx) == []  # every verdict cached: the CLI runs no check
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "validate", str(suite)], capture_output=True,
                          text=True, env={**os.environ, "REQBENCH_CACHE": str(tmp_path / "cache")}, timeout=120)
    total = 3 * len(ctx.suite.delivery)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    stderr = " ".join(proc.stderr.split())
    assert f"admission: {total} checks" in stderr and f"admission {total}/{total}" in stderr
    stdout = " ".join(proc.stdout.split())  # the console wraps long paths
    assert "valid takeover suite" in stdout and "admission:" not in stdout
