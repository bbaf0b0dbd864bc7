"""The real-project case: cachetools 5.3.3 fetched as a pinned sdist (cached, hash-checked).

Needs the PyPI index once; later runs use the core.workspace cache under ~/.cache/reqbench (or
$REQBENCH_PACE_PYPI_CACHE).
"""

import os
import socket
from pathlib import Path

import pytest

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.controls import run_controls
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import CACHETOOLS


def _reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


@pytest.fixture
def shared_cache(monkeypatch: pytest.MonkeyPatch) -> Path:
    root = Path(os.environ.get("REQBENCH_PACE_PYPI_CACHE", Path.home() / ".cache" / "reqbench"))
    monkeypatch.setenv("REQBENCH_CACHE", str(root))
    cached = any(
        (root / d).exists() and any((root / d).glob("*cachetools*")) for d in ("sdists", "pace/bases")
    )
    if not cached and not _reachable():
        pytest.skip("PyPI unreachable and cachetools 5.3.3 not cached")
    return root


def test_cachetools_controls_on_the_real_sdist(shared_cache: Path) -> None:
    case = load_case(CACHETOOLS)
    out = run_controls(Scorer(case), [load_case(CACHETOOLS.parent / "billflow-credit-notes")])
    assert out["reference"] >= 95
    assert out["empty"] == 0 and out["unrelated"] == 0
    assert out["identifier_only"] <= 10
    assert out["cross_case"] is None
    l0 = out["details"]["identifier_only"]["verdicts"]
    assert l0["CP10"] == "Missing" and l0["CP12"] == "Missing"  # exports absent: conclusive L0 misses
