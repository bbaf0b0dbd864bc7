"""`kernelpath.real_path` gives exactly ``os.path.realpath``'s answer, by asking the kernel where it can."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.core.kernelpath import kernel_name, real_path


def test_real_path_is_realpath_for_links_missing_and_relative_paths(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f").write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "to-a")
    os.symlink("to-a/b", tmp_path / "rel-link")
    os.symlink(tmp_path / "gone", tmp_path / "dangling")
    monkeypatch.chdir(tmp_path)
    for path in ["to-a/b/f", "rel-link", "rel-link/../b", "dangling", "missing/x", "a/b/../b/f", ".",
                 str(tmp_path / "to-a"), "/"]:
        assert real_path(path) == os.path.realpath(path), path
    assert kernel_name("to-a/b/f") == os.path.realpath("to-a/b/f")
    assert kernel_name("missing/x") is None and kernel_name("dangling") is None  # realpath answers those
