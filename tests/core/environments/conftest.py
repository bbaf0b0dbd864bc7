"""Environment tests run real bubblewrap where it works (skipped elsewhere, failed under CI)."""

from __future__ import annotations

from tests.security.conftest import require_bwrap  # noqa: F401 - shared fixture
