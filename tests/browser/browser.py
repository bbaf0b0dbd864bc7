"""Headless Chromium for the browser tests and `make screenshots`: Debian's `chromium` driven by
Playwright for Python (its wheel carries the driver; no browser download)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("REQBENCH_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"chromium not found at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ModuleNotFoundError:
        return "playwright is not installed (pip install -e '.[dev]')"
    return None


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@contextmanager
def served(path: Path, study: Any = None) -> Iterator[tuple[str, Any, str]]:
    """`reqbench view PATH` on a free port (with `study`, a study's page): yields (base URL, viewer, the URL
    with this launch's token, which a page must open first)."""
    from reqbench.report.viewer import make_server

    server = make_server(path, port=0, study=study)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.viewer, server.url
    finally:
        server.shutdown()
        server.server_close()
        server.viewer.close()
