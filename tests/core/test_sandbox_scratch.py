"""`core.sandbox.scratch`: the bound of an agent step's HOME/TMPDIR tmpfs and how a filled one is told."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.sandbox import available_isolation, run_sandboxed
from reqbench.core.sandbox.scratch import (
    DEFAULT_SCRATCH_BYTES,
    HOME,
    SCRATCH_ENV,
    TMP,
    scratch_bytes,
    was_full,
)


def test_the_bound_comes_from_the_caller_the_environment_or_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCRATCH_ENV, raising=False)
    assert scratch_bytes() == DEFAULT_SCRATCH_BYTES == 1024**3
    monkeypatch.setenv(SCRATCH_ENV, "64M")
    assert scratch_bytes() == 64 * 1024**2
    assert scratch_bytes(32 * 1024**2) == 32 * 1024**2
    monkeypatch.setenv(SCRATCH_ENV, "1M")
    with pytest.raises(InputError, match=SCRATCH_ENV):
        scratch_bytes()
    monkeypatch.setenv(SCRATCH_ENV, "lots")
    with pytest.raises(InputError, match="not a size"):
        scratch_bytes()


def test_any_report_of_a_full_scratch_counts_and_garbage_does_not() -> None:
    assert was_full(b"0 4096\n")
    assert not was_full(b"16384 4096\n")
    assert was_full(b"16384 4096\n10 4096\n")  # the process may add lines: it can only look full
    assert not was_full(b"garbage\n\xff\n1 2 3\n")


def test_home_and_tmpdir_are_a_tmpfs_of_the_bound_inside_the_sandbox(tmp_path: Path) -> None:
    if available_isolation() != "bwrap":
        pytest.skip("bubblewrap is not usable here")
    result = run_sandboxed('echo "$HOME $TMPDIR"; stat -f -c "%T %b %S" "$HOME"', tmp_path, timeout=60,
                           scratch_bytes=32 * 1024**2)
    words = result.stdout.decode().split()
    assert words[:2] == [str(HOME), str(TMP)] and words[2] == "tmpfs"
    assert int(words[3]) * int(words[4]) == 32 * 1024**2
    assert not result.scratch_full and result.limit_notes() == ""
