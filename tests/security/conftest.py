"""Security tests need the real sandbox: skipped without bubblewrap locally, a failure in CI."""

from __future__ import annotations

import os
import shutil

import pytest

from reqbench.core.sandbox import available_isolation


@pytest.fixture
def require_bwrap() -> None:
    if shutil.which("bwrap") and available_isolation() == "bwrap":
        return
    if os.environ.get("CI"):
        pytest.fail("CI must exercise the real sandbox, but bubblewrap is not available")
    pytest.skip("bubblewrap is not available")
