"""A session-wide, throw-away ``$REQBENCH_CACHE`` for tests that fetch real sdists from PyPI.

`pypi_cache` points the cache at a pytest temp folder for the whole session (each sdist is downloaded
once per session); `need_release` skips the calling test, with the reason, when pip cannot download.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.workspace import RepoSource


@pytest.fixture(scope="session")
def pypi_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    cache = tmp_path_factory.mktemp("reqbench-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("REQBENCH_CACHE", str(cache))
        yield cache


def need_release(*requirements: str) -> None:
    """Fetch each ``NAME==VERSION`` sdist into the cache, or skip the test when PyPI is unreachable."""
    for req in requirements:
        try:
            RepoSource.parse(f"pypi:{req}").baseline()
        except InputError as exc:
            if "could not download" in str(exc):
                pytest.skip(f"PyPI not reachable with pip download ({exc})")
            raise
