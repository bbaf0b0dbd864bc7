"""Red-team tests run against the real sandbox: skipped without bubblewrap locally, failed on CI."""

from __future__ import annotations

import os

import pytest

from reqbench.core.sandbox import available_isolation
from tests.protocols.journey.conftest import calc_instance  # noqa: F401 - shared fixture


@pytest.fixture(scope="session")
def require_bwrap() -> None:
    """Skip where bubblewrap cannot isolate (a developer's machine); fail under CI, which must test it."""
    if available_isolation() != "bwrap":
        if os.environ.get("CI"):
            pytest.fail("CI must exercise the real sandbox: bubblewrap is missing or unusable")
        pytest.skip("bubblewrap is not usable here")
