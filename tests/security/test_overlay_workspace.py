"""Red team: an overlay workspace (`core.workspace.overlay`) is the agent's whole world and nothing more.

A real sandboxed shell script edits, deletes, replaces and tries to reach behind the overlay: writes never
reach the baseline (its tree hash is re-checked), the upper directory cannot be written except through
the overlay, overlay attributes and whiteouts cannot be forged from inside, hidden tests next to the
baseline are not visible, and every deletion shows in the diff. Each case also checks that the patch,
applied to a copy of the baseline, rebuilds exactly the merged tree."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from reqbench.core.errors import HarnessError
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.workspace import apply_patch, copy_tree, materialize, tree_hash
from reqbench.core.workspace.overlay import overlay_available
from reqbench.core.workspace.workspace import OVERLAY_MIN_ENTRIES

pytestmark = [pytest.mark.usefixtures("require_bwrap"),
              pytest.mark.skipif(not overlay_available(), reason="overlayfs mounts need root and overlayfs")]


def _family(tmp_path: Path) -> tuple[Path, Path]:
    """A base repository with a hidden-test folder beside it (as a suite lays them out)."""
    base = tmp_path / "family" / "repo"
    (base / "pkg" / "deep").mkdir(parents=True)
    (base / "pkg" / "mod.py").write_text("VALUE = 1\n")
    (base / "pkg" / "deep" / "a.py").write_text("A = 1\n")
    (base / "pkg" / "deep" / "b.py").write_text("B = 1\n")
    (base / "gone.txt").write_text("bye\n")
    (base / "tool.sh").write_text("#!/bin/sh\n")
    _filler(base)
    hidden = tmp_path / "family" / "hidden"
    hidden.mkdir()
    (hidden / "test_secret.py").write_text("ANSWER = 42\n")
    return base, hidden


def _filler(base: Path) -> None:
    """Enough untouched files for `materialize` to choose an overlay (small trees are copied)."""
    (base / "filler").mkdir()
    for i in range(OVERLAY_MIN_ENTRIES):
        (base / "filler" / f"f{i}.txt").write_text(f"{i}\n")


def _rebuilds(base: Path, ws_path: Path, patch: str, tmp_path: Path) -> None:
    rebuilt = tmp_path / "rebuilt"
    copy_tree(base, rebuilt)
    apply_patch(rebuilt, patch)
    assert tree_hash(rebuilt) == tree_hash(ws_path)


AGENT = """
set -u
printf 'VALUE = 2\\n' > pkg/mod.py
rm gone.txt
rm -r pkg/deep && mkdir pkg/deep && printf 'C = 1\\n' > pkg/deep/c.py
chmod +x tool.sh
printf 'new\\n' > added.txt
# reaching behind the overlay: the baseline and the upper directory by their host paths
printf 'pwned\\n' > "$BASE/pkg/mod.py" 2>/dev/null && echo WROTE_BASE
printf 'pwned\\n' > "$UPPER/planted.txt" 2>/dev/null && echo WROTE_UPPER
# forging overlay metadata from inside: an opaque attribute and a whiteout device
python3 -c "import os; os.setxattr('pkg', 'trusted.overlay.opaque', b'y')" 2>/dev/null && echo SET_OPAQUE
mknod fake c 0 0 2>/dev/null && echo MADE_WHITEOUT
# looking for hidden tests
cat "$HIDDEN/test_secret.py" 2>/dev/null && echo SAW_HIDDEN
ls -a . ; find / -name test_secret.py 2>/dev/null | head -1
exit 0
"""


def test_agent_edits_stay_in_the_upper_directory_and_every_deletion_is_diffed(tmp_path: Path) -> None:
    base, hidden = _family(tmp_path)
    before = tree_hash(base)
    ws = materialize(base, tmp_path / "run" / "ws", overlay=True)
    assert ws.overlay
    upper = ws.path.with_name(".ws.reqbench") / "overlay" / "upper"
    proc = run_sandboxed(AGENT, ws.path, timeout=60,
                         env={"BASE": str(base), "UPPER": str(upper), "HIDDEN": str(hidden)})
    assert proc.exit_code == 0, proc.stderr
    out = proc.stdout_tail()
    for marker in ("WROTE_BASE", "WROTE_UPPER", "SET_OPAQUE", "MADE_WHITEOUT", "SAW_HIDDEN", "ANSWER"):
        assert marker not in out
    assert "test_secret.py" not in out
    assert tree_hash(base) == before  # the baseline was never written
    assert (base / "pkg" / "mod.py").read_text() == "VALUE = 1\n" and (base / "gone.txt").is_file()
    patch = ws.diff()
    assert "deleted file mode 100644" in patch
    for gone in ("a/gone.txt", "a/pkg/deep/a.py", "a/pkg/deep/b.py"):
        assert f"diff --git {gone} " in patch
    assert "+VALUE = 2" in patch and "+C = 1" in patch and "+new" in patch
    assert "old mode 100644\nnew mode 100755" in patch
    assert "planted" not in patch and "fake" not in patch
    _rebuilds(base, ws.path, patch, tmp_path)
    ws.close()
    assert tree_hash(base) == before
    assert sorted(os.listdir(tmp_path / "run")) == []  # mount point, upper and work directories gone


def test_replacing_a_directory_by_a_file_and_a_file_by_a_directory(tmp_path: Path) -> None:
    base, _ = _family(tmp_path)
    ws = materialize(base, tmp_path / "ws", overlay=True)
    script = "rm -r pkg/deep && printf 'flat\\n' > pkg/deep && rm gone.txt && mkdir gone.txt && echo x > gone.txt/in"
    assert run_sandboxed(script, ws.path, timeout=60).exit_code == 0
    patch = ws.diff()
    assert {line for line in patch.splitlines() if line.startswith("diff --git")} == {
        "diff --git a/gone.txt b/gone.txt", "diff --git a/gone.txt/in b/gone.txt/in",
        "diff --git a/pkg/deep b/pkg/deep", "diff --git a/pkg/deep/a.py b/pkg/deep/a.py",
        "diff --git a/pkg/deep/b.py b/pkg/deep/b.py"}
    _rebuilds(base, ws.path, patch, tmp_path)
    ws.close()


def test_a_baseline_symlink_replaced_by_a_directory_never_reads_through_the_link(tmp_path: Path) -> None:
    """The baseline holds ``etc -> /etc``; the agent makes ``etc`` a directory holding ``passwd``: the
    diff's baseline side must be the link, never the host's /etc/passwd."""
    base, _ = _family(tmp_path)
    os.symlink("/etc", base / "etc")
    ws = materialize(base, tmp_path / "ws", overlay=True)
    assert run_sandboxed("rm etc && mkdir etc && echo mine > etc/passwd", ws.path, timeout=60).exit_code == 0
    patch = ws.diff()
    assert "root:" not in patch
    assert "deleted file mode 120000" in patch and "+mine" in patch
    _rebuilds(base, ws.path, patch, tmp_path)
    ws.close()


def test_the_merged_view_belongs_to_the_thread_that_mounted_it(tmp_path: Path) -> None:
    """A thread started before the mount (a pool worker) sees an empty directory: the workspace refuses to
    be diffed or closed from there instead of reporting an empty change set."""
    base, _ = _family(tmp_path)
    ready, done = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def other() -> None:
        ready.wait()
        seen["listing"] = os.listdir(seen["path"])  # type: ignore[arg-type]
        for name in ("diff", "close"):
            try:
                getattr(seen["ws"], name)()
                seen[name] = "no error"
            except HarnessError as exc:
                seen[name] = str(exc)
        done.set()

    def owner() -> None:
        ws = materialize(base, tmp_path / "ws", overlay=True)
        (ws.path / "pkg" / "mod.py").write_text("VALUE = 3\n")
        seen["path"], seen["ws"] = ws.path, ws
        ready.set()
        done.wait()
        seen["owner_diff"] = ws.diff()
        ws.close()

    threads = [threading.Thread(target=other), threading.Thread(target=owner)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["listing"] == []
    assert "another thread's mount namespace" in str(seen["diff"])
    assert "another thread's mount namespace" in str(seen["close"])
    assert "+VALUE = 3" in str(seen["owner_diff"])
    assert not (tmp_path / "ws").exists()


def test_copy_fallback_when_overlays_are_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, _ = _family(tmp_path)
    monkeypatch.setenv("REQBENCH_OVERLAY", "0")
    ws = materialize(base, tmp_path / "ws", overlay=True)
    assert not ws.overlay
    assert sorted(os.listdir(ws.path)) == ["filler", "gone.txt", "pkg", "tool.sh"]  # a real copy, seen by everyone
    shutil.rmtree(ws.path / "pkg")
    assert ws.diff().count("deleted file mode") == 3
    ws.close()
