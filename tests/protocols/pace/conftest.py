"""Fixtures: the bundled cases and a small dir-based case built in a temp folder."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from reqbench.core.bundled import bundled_suite

EXAMPLES = bundled_suite("pace")
BILLFLOW = EXAMPLES / "billflow-credit-notes"
CACHETOOLS = EXAMPLES / "cachetools-slru"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """A model key for the loopback provider; no response cache, not offline, no stray base URL."""
    monkeypatch.setenv("REQBENCH_API_KEY", "test")
    for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True, timeout=300
    )
