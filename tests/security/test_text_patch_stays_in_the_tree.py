"""A hostile patch handed to the in-process applier (`textapply`) is refused before anything is written
and left to `git apply`, so the outcome is git's: the same error, the same tree, nothing outside the
workspace written. And an agent's workspace whose edits only look like text (a NUL, invalid UTF-8) is
diffed by git, byte for byte."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from reqbench.core.workspace import PatchApplyError, apply_patch, materialize, tree_hash
from reqbench.core.workspace.textapply import apply_text
from tests.core.textpatch_support import diffs, encoded, snapshot

ORIGINAL = "a = 1\nb = 2\nc = 3\n"
VICTIM = "secret = 1\nb = 2\nc = 3\n"


def hunk_patch(path: str, kind: str = "modify") -> str:
    """A well-formed patch for `path` (header names as given), as git would print it."""
    if kind == "add":
        return (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
                f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+owned = True\n")
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
            "@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 'owned'\n c = 3\n")


def setup_root(root: Path) -> Path:
    """root/ws (the workspace, with a file and hostile links) and root/outside (what must stay untouched)."""
    ws, outside = root / "ws", root / "outside"
    (ws / "pkg").mkdir(parents=True)
    outside.mkdir()
    (ws / "pkg" / "m.py").write_text(ORIGINAL)
    (outside / "m.py").write_text(ORIGINAL)  # context that matches, should a write go through a link
    (outside / "victim.py").write_text(VICTIM)
    os.symlink("../outside", ws / "linkdir")
    os.symlink("../outside/m.py", ws / "link.py")
    os.symlink("../../outside", ws / "pkg" / "up")
    os.link(outside / "victim.py", ws / "hard.py")
    return ws


def outcome(root: Path, patch: str, *, in_process: bool) -> tuple[str | None, dict[str, object]]:
    ws = setup_root(root)
    try:
        apply_patch(ws, patch, in_process=in_process)
        error = None
    except PatchApplyError as exc:
        error = exc.rule
    return error, {k: v for k, v in snapshot(root).items()}


HOSTILE: dict[str, str] = {
    "write through a directory link": hunk_patch("linkdir/m.py"),
    "add through a directory link": hunk_patch("linkdir/new.py", "add"),
    "add through a nested link": hunk_patch("pkg/up/new.py", "add"),
    "modify a link": hunk_patch("link.py"),
    "dot-dot escape": hunk_patch("../outside/m.py"),
    "dot-dot add": hunk_patch("pkg/../../outside/new.py", "add"),
    "absolute path": hunk_patch("/ABS/new.py", "add"),
    "git directory": hunk_patch(".git/hooks/post-checkout", "add"),
    "git directory, other case": hunk_patch("pkg/.GIT/config", "add"),
    "dot component": hunk_patch("pkg/./m.py"),
    "empty component": hunk_patch("pkg//m.py"),
    "names that disagree": hunk_patch("pkg/m.py").replace("+++ b/pkg/m.py", "+++ b/linkdir/m.py"),
    "counts claim more lines": hunk_patch("pkg/m.py").replace("@@ -1,3 +1,3 @@", "@@ -1,3 +1,5 @@")
    + hunk_patch("linkdir/victim.py"),
    "counts claim fewer lines": hunk_patch("pkg/m.py").replace("@@ -1,3 +1,3 @@", "@@ -1,2 +1,2 @@"),
    "hunk beyond the file": hunk_patch("pkg/m.py").replace("@@ -1,3 +1,3 @@", "@@ -7,3 +7,3 @@"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_patch_is_refused_in_process_and_ends_as_git_ends_it(tmp_path: Path, name: str) -> None:
    patch = HOSTILE[name].replace("/ABS/", f"{tmp_path}/abs/")
    probe = setup_root(tmp_path / "probe")
    before = snapshot(tmp_path / "probe")
    assert apply_text(probe, encoded(patch)) is False
    assert snapshot(tmp_path / "probe") == before
    mine = outcome(tmp_path / "mine", patch, in_process=True)
    theirs = outcome(tmp_path / "theirs", patch, in_process=False)
    assert mine == theirs
    for root in ("mine", "theirs"):
        assert (tmp_path / root / "outside" / "m.py").read_text() == ORIGINAL
        assert (tmp_path / root / "outside" / "victim.py").read_text() == VICTIM
        assert not (tmp_path / root / "outside" / "new.py").exists()
    assert not (tmp_path / "abs").exists()


def test_a_hard_link_to_an_outside_file_is_replaced_not_written_through(tmp_path: Path) -> None:
    patch = hunk_patch("hard.py").replace(" a = 1\n-b = 2\n", " secret = 1\n-b = 2\n")
    probe = setup_root(tmp_path / "probe")
    assert apply_text(probe, encoded(patch)) is True  # a regular file: the common case, in process
    assert (probe / "hard.py").read_text() == "secret = 1\nb = 'owned'\nc = 3\n"
    assert (tmp_path / "probe" / "outside" / "victim.py").read_text() == VICTIM
    assert outcome(tmp_path / "mine", patch, in_process=True) == outcome(tmp_path / "theirs", patch,
                                                                          in_process=False)


WRITERS: dict[str, Callable[[Path], None]] = {
    "nul in a text file": lambda ws: (ws / "m.py").write_bytes(b"x = 1\n\0y = 2\n"),
    "invalid utf-8": lambda ws: (ws / "m.py").write_bytes(b"x = 'caf\xe9'\n"),
    "nul in a new file": lambda ws: (ws / "new.py").write_bytes(b"print(1)\n\0"),
    "surrogate-looking bytes": lambda ws: (ws / "m.py").write_bytes(b"x = '\xed\xa0\x80'\n"),
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_text_lookalike_edits_are_diffed_by_git_byte_for_byte(tmp_path: Path, name: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text("x = 1\n")
    (src / "other.py").write_text("y = 1\n")
    ws = materialize(src, tmp_path / "ws")
    (ws.path / "other.py").write_text("y = 2\n")  # a plain text edit beside it: still all-or-nothing
    WRITERS[name](ws.path)
    patch = ws.diff()
    assert diffs(src, ws.path) == (None, patch)
    assert "GIT binary patch" in patch and "+y = 2" in patch
    fresh = materialize(src, tmp_path / "fresh")
    fresh.apply(patch)
    assert tree_hash(fresh.path) == tree_hash(ws.path)
    for rel in ("m.py", "other.py", "new.py"):
        if (ws.path / rel).exists():
            assert (fresh.path / rel).read_bytes() == (ws.path / rel).read_bytes()
    shutil.rmtree(tmp_path / "fresh")
