"""Exported Harbor tasks that run need real bubblewrap (a verifier's fixed paths, task environments)."""

from __future__ import annotations

from tests.security.conftest import require_bwrap  # noqa: F401 - shared fixture
