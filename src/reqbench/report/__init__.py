"""Reports of runs, for any protocol: a suite's typed `Summary` plus run accounting and provenance as
terminal, markdown and HTML tables (`tables`, `run_report`, `html`), PNG plots (`plots`, `headline_plots`),
row exports, and the local web viewer (`viewer`). Knows no protocol: everything comes from the summary."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any


def report_payload(run_dir: str | Path, *, grading: str | None = None) -> dict[str, Any]:
    """The report payload of a run directory (JSON-ready; what `reqbench report --json` prints)."""
    from reqbench.core.execute.suite import load_protocol
    from reqbench.core.store import RunStore
    from reqbench.report.run_report import build_payload, pick_grading

    with RunStore.open(Path(run_dir), read_only=True) as store:
        suite = load_protocol(store.meta.protocol).load(Path(store.meta.suite_path))
        payload: dict[str, Any] = build_payload(store, suite, pick_grading(store, grading))
    return payload


class _CallablePackage(types.ModuleType):
    """``reqbench.report(run_dir)`` is `report_payload` while ``reqbench.report.tables`` stays a package."""

    def __call__(self, run_dir: str | Path, *, grading: str | None = None) -> dict[str, Any]:
        return report_payload(run_dir, grading=grading)


sys.modules[__name__].__class__ = _CallablePackage
