"""A session-wide, throw-away ``$REQBENCH_CACHE`` for tests that fetch real sdists from PyPI.

`pypi_cache` points the cache at a pytest temp folder for the whole session, one folder shared by the
xdist workers (each sdist is downloaded once per session, whichever worker asks first); `need_release`
skips the calling test, with the reason, when pip cannot download; a lock per release makes a second
worker wait for the first one's download of it instead of repeating it.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reqbench.core.cache_location import cache_root
from reqbench.core.errors import InputError
from reqbench.core.workspace import RepoSource


@pytest.fixture(scope="session")
def pypi_cache(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Iterator[Path]:
    if worker_id == "master":  # no xdist: the session's own temp folder
        cache = tmp_path_factory.mktemp("reqbench-cache")
    else:  # the parent of every worker's base temp folder is the session's (as in tests/security/redteam)
        cache = tmp_path_factory.getbasetemp().parent / "reqbench-cache"
        cache.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("REQBENCH_CACHE", str(cache))
        yield cache


def _fetch(requirement: str) -> InputError | None:
    """One release, under its own lock in the cache: a worker asking for it while another fetches it waits
    for that download instead of repeating it (other releases are not held up)."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".need-{requirement.replace('/', '_')}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            RepoSource.parse(f"pypi:{requirement}").baseline()
        except InputError as exc:
            return exc
    return None


def need_release(*requirements: str) -> None:
    """Fetch each ``NAME==VERSION`` sdist into the cache (several ``pip download`` at once: each mostly
    waits on the index), or skip the test when PyPI is unreachable."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [exc for exc in pool.map(_fetch, dict.fromkeys(requirements)) if exc is not None]
    for exc in failures:
        if "could not download" in str(exc):
            pytest.skip(f"PyPI not reachable with pip download ({exc})")
    if failures:
        raise failures[0]
