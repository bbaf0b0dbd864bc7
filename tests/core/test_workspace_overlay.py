"""Overlay workspaces (`core.workspace.overlay`): the change set read from the upper directory equals the
copy's, hand-checked on a small tree, and an attempt never leaves a mount behind."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.execute.runner import run_attempt
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.store.selection import NextStep
from reqbench.core.workspace import materialize, tree_hash
from reqbench.core.workspace.overlay import overlay_available, release_under
from reqbench.core.workspace.workspace import OVERLAY_MIN_ENTRIES
from tests.support.stub_protocol import StubProtocol

pytestmark = pytest.mark.skipif(not overlay_available(), reason="overlayfs mounts need root and overlayfs")


def _base(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "src").mkdir(parents=True)
    (base / "src" / "a.py").write_text("a = 1\n")
    (base / "src" / "b.py").write_text("b = 1\n")
    (base / "README").write_text("hello\n")
    (base / "filler").mkdir()  # enough untouched files for `materialize` to choose an overlay
    for i in range(OVERLAY_MIN_ENTRIES):
        (base / "filler" / f"f{i}.txt").write_text(f"{i}\n")
    return base


def _edit(root: Path) -> None:
    (root / "src" / "a.py").write_text("a = 2\n")
    os.remove(root / "README")
    (root / "src" / "__pycache__").mkdir()
    (root / "src" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (root / "new.txt").write_text("n\n")
    os.chmod(root / "src" / "b.py", 0o755)


def test_overlay_diff_equals_the_copy_diff(tmp_path: Path) -> None:
    base = _base(tmp_path)
    before = tree_hash(base)
    patches = []
    for overlay in (True, False):
        ws = materialize(base, tmp_path / f"ws-{overlay}", overlay=overlay)
        assert ws.overlay is overlay
        _edit(ws.path)
        patches.append(ws.diff())
        ws.close()
    assert patches[0] == patches[1]
    assert [ln for ln in patches[0].splitlines() if ln.startswith(("diff", "old mode", "new mode", "deleted",
                                                                     "new file", "+", "-"))] == [
        "diff --git a/README b/README", "deleted file mode 100644", "--- a/README", "+++ /dev/null", "-hello",
        "diff --git a/new.txt b/new.txt", "new file mode 100644", "--- /dev/null", "+++ b/new.txt", "+n",
        "diff --git a/src/a.py b/src/a.py", "--- a/src/a.py", "+++ b/src/a.py", "-a = 1", "+a = 2",
        "diff --git a/src/b.py b/src/b.py", "old mode 100644", "new mode 100755"]
    assert tree_hash(base) == before


def test_unchanged_overlay_workspace_has_an_empty_diff_and_git_init_stays_out_of_it(tmp_path: Path) -> None:
    base = _base(tmp_path)
    ws = materialize(base, tmp_path / "ws", overlay=True, git_init=True)
    assert ws.overlay and (ws.path / ".git").is_dir()
    assert ws.diff() == ""
    (ws.path / "README").write_text("hello\n")  # copied up, same content
    assert ws.diff() == ""
    ws.close()
    assert not (tmp_path / "ws").exists() and not (tmp_path / ".ws.reqbench").exists()


class _LeakySuite:
    """A protocol that materialises an overlay workspace and never closes it."""

    protocol = StubProtocol("leaky")

    def __init__(self, base: Path) -> None:
        self.base = base
        self.seen: list[str] = []

    def run_row(self, row: Row, ctx: Any) -> RowOutcome:
        ws = materialize(self.base, ctx.work_dir / "agent", overlay=True)
        self.seen = os.listdir(ws.path)
        return RowOutcome(RowStatus.SCORED, result={"ok": True})


def test_an_attempt_unmounts_the_overlay_a_protocol_left_and_removes_its_scratch(tmp_path: Path) -> None:
    base = _base(tmp_path)
    before = tree_hash(base)
    suite = _LeakySuite(base)
    work = tmp_path / "work" / "attempt"
    result: dict[str, Any] = {}

    def worker() -> None:  # like a pool thread: the attempt's namespace is this thread's
        result["report"] = run_attempt(suite, Row("t", "c", "a", 0), RunOptions(agent="x"), NextStep.RUN, None,
                                       work)
        result["mounts"] = Path("/proc/thread-self/mountinfo").read_text()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert result["report"].outcome.status is RowStatus.SCORED
    assert sorted(suite.seen) == ["README", "filler", "src"]
    assert str(work) not in result["mounts"]
    assert not work.exists()
    assert tree_hash(base) == before


def test_release_under_touches_only_mounts_below_its_root(tmp_path: Path) -> None:
    base = _base(tmp_path)
    out: dict[str, Any] = {}

    def worker() -> None:
        keep = materialize(base, tmp_path / "keep" / "ws", overlay=True)
        materialize(base, tmp_path / "drop me" / "ws", overlay=True)
        out["released"] = release_under(tmp_path / "drop me")
        out["keep"] = sorted(os.listdir(keep.path))
        keep.close()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert out["released"] == [str(tmp_path / "drop me" / "ws")]
    assert out["keep"] == ["README", "filler", "src"]


def test_a_small_baseline_is_copied_even_when_an_overlay_is_allowed(tmp_path: Path) -> None:
    base = tmp_path / "small"
    base.mkdir()
    (base / "a").write_text("a\n")
    ws = materialize(base, tmp_path / "ws", overlay=True)
    assert not ws.overlay and (ws.path / "a").read_text() == "a\n"
    ws.close()
