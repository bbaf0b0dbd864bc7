"""Target and regression gates are independent (each checks its own snapshot), so they run side by side
after a passing build -- with exactly the statuses they have one after the other. The bundled suite,
its reference patch, real checks in the sandbox."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.checks import run_check_settled
from reqbench.core.workspace import apply_patch, materialize
from reqbench.protocols.takeover.run import coding
from reqbench.protocols.takeover.run.context import SuiteContext


def test_target_and_regression_overlap_after_build_and_all_pass(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = SuiteContext.load(bundled_suite("takeover"), tmp_path / "cache")
    target = ctx.target_ids()[0]
    ws = materialize(ctx.initial_repository(target), tmp_path / "ws")
    apply_patch(ws.path, (ctx.suite_dir / ctx.delivery(target).reference_patch).read_text(encoding="utf-8"))
    spans: dict[str, tuple[float, float]] = {}
    lock = threading.Lock()

    def timed(check: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.monotonic()
        result = run_check_settled(check, *args, **kwargs)
        with lock:
            spans[check.name] = (started, time.monotonic())
        return result

    monkeypatch.setattr(coding, "run_check_settled", timed)
    statuses, details = coding.run_gates(ctx, target, ws.path)
    assert statuses == {"build": "PASS", "target": "PASS", "regression": "PASS"}, details
    (t0, t1), (r0, r1), b1 = spans["target"], spans["regression"], spans["build"][1]
    assert b1 <= min(t0, r0)  # build first
    assert t0 < r1 and r0 < t1  # then both at once: each started before the other ended
