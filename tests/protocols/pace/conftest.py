"""Fixtures: the bundled cases and a small dir-based case built in a temp folder."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reqbench.core.bundled import bundled_suite

EXAMPLES = bundled_suite("pace")
BILLFLOW = EXAMPLES / "billflow-credit-notes"
CACHETOOLS = EXAMPLES / "cachetools-slru"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True, timeout=300
    )
