"""Reading an attempt's artifacts (content-addressed blobs) as text or JSON for the viewer's pages."""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.store.selection import Attempt
from reqbench.report.viewer.run_context import RunContext


def blob_text(run: RunContext, attempt: Attempt, name: str) -> str | None:
    sha = attempt.artifacts.get(name)
    if sha is None:
        return None
    try:
        return run.store.artifacts.get(sha).decode("utf-8", errors="replace")
    except InputError as exc:
        return f"[{exc}]"


def blob_json(run: RunContext, attempt: Attempt, name: str) -> Any:
    text = blob_text(run, attempt, name)
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None
