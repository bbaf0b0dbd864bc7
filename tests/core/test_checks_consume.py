"""`run_check(consume=True)`: a harness-made tree is moved into the check (not copied) and moved back;
where it cannot be moved (a mount point) it is copied as before. The default copies."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.workspace import materialize
from reqbench.core.workspace.overlay import overlay_available
from reqbench.core.workspace.workspace import OVERLAY_MIN_ENTRIES

PLANT = "test -f calc.py && echo planted > planted.txt && exit 0"


def _tree(root: Path) -> Path:
    ws = root / "tree"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (ws / "conftest.py").write_text("# changed by the submission\n")
    return ws


def test_consumed_tree_is_the_checked_tree_and_comes_back(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    base = tmp_path / "base"
    base.mkdir()
    (base / "conftest.py").write_text("# the base's own\n")
    result = run_check(Check(name="c", command=PLANT), ws, base=base, consume=True)
    assert result.status is CheckStatus.PASS, result.detail
    assert (ws / "planted.txt").read_text() == "planted\n"  # written in place: no copy was made
    assert (ws / "conftest.py").read_text() == "# the base's own\n"  # protected paths restored in it
    assert result.protected_touched == ["conftest.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "tree"]  # the scratch went away


def test_default_copies_the_tree(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    assert run_check(Check(name="c", command=PLANT), ws).status is CheckStatus.PASS
    assert not (ws / "planted.txt").exists()
    assert (ws / "conftest.py").read_text() == "# changed by the submission\n"


def test_consumed_tree_comes_back_after_a_failing_check(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    result = run_check(Check(name="c", command="rm calc.py; exit 1"), ws, consume=True)
    assert result.status is CheckStatus.FAIL
    assert ws.is_dir() and not (ws / "calc.py").exists()


def test_a_link_to_a_tree_is_copied_not_moved(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(ws)
    assert run_check(Check(name="c", command=PLANT), link, consume=True).status is CheckStatus.PASS
    assert link.is_symlink() and not (ws / "planted.txt").exists()


@pytest.mark.skipif(not overlay_available(), reason="overlayfs mounts need root and overlayfs")
def test_a_mount_point_cannot_be_moved_so_it_is_copied(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    base = _tree(tmp_path / "src")
    for i in range(OVERLAY_MIN_ENTRIES):
        (base / f"f{i}.txt").write_text(f"{i}\n")
    seen: dict[str, object] = {}

    def owner() -> None:  # an overlay lives in its thread's mount namespace
        ws = materialize(base, tmp_path / "ws", overlay=True)
        try:
            seen["overlay"] = ws.overlay
            seen["status"] = run_check(Check(name="c", command=PLANT), ws.path, consume=True).status
            seen["planted"] = (ws.path / "planted.txt").exists()
            seen["still_there"] = (ws.path / "f0.txt").is_file()
        finally:
            ws.close()

    thread = threading.Thread(target=owner)
    thread.start()
    thread.join()
    if not seen.get("overlay"):
        pytest.skip("materialize chose a copy here")
    assert seen["status"] is CheckStatus.PASS
    assert seen["planted"] is False and seen["still_there"] is True
