"""Where reqbench keeps what it can make again: ``$REQBENCH_CACHE``, else ``~/.cache/reqbench``.

Its own module so that start-up code (`core.code_cache`) finds the folder without importing the
workspace layer. Agents and checks never see it
(tests/security/test_environment_cannot_show_the_package_or_the_cache.py).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$REQBENCH_CACHE`` or ``~/.cache/reqbench``."""
    env = os.environ.get("REQBENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "reqbench"
