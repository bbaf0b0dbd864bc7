"""`diffmemo`: a section git wrote once is reused for the same path and contents, and only then."""

from __future__ import annotations

import shutil
from pathlib import Path

from reqbench.core.workspace import diffmemo, materialize
from reqbench.core.workspace.patches import scan_tree
from reqbench.core.workspace.textdiff import remember, text_patch
from tests.core.textpatch_support import diffs

OLD = "def a():\n    return 1\n\n\ndef c():\n    return 3\n"
NEW = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"  # blank lines slide


def changed_between(base: Path, new: Path) -> tuple[dict, dict, set[str]]:  # type: ignore[type-arg]
    old_refs, new_refs = scan_tree(base), scan_tree(new)
    return old_refs, new_refs, {r for r in set(old_refs) | set(new_refs)
                                if getattr(old_refs.get(r), "sha", None) != getattr(new_refs.get(r), "sha", None)}


def test_an_edit_git_had_to_place_is_reused_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(OLD)
    mine, git_patch = diffs(src, _edited(src, tmp_path / "probe"))
    assert mine is None  # ambiguous placement: git decides
    first = materialize(src, tmp_path / "first")
    (first.path / "m.py").write_text(NEW)
    assert first.diff() == git_patch  # git's patch, now remembered
    second = materialize(src, tmp_path / "second")
    (second.path / "m.py").write_text(NEW)
    refs = changed_between(src, second.path)
    assert text_patch(*refs) == git_patch  # no git needed any more
    assert second.diff() == git_patch
    (second.path / "m.py").write_text(NEW + "# another line\n")
    assert text_patch(*changed_between(src, second.path)) is None  # other content, other key


def test_remember_files_nothing_it_cannot_match_to_the_paths(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(OLD)
    new = _edited(src, tmp_path / "new")
    refs = changed_between(src, new)
    diffmemo.clear()
    remember(*refs, "diff --git a/other.py b/other.py\nindex 1..2 100644\n")
    remember(*refs, "")
    assert text_patch(*refs) is None
    (new / "m.py").write_text("rewritten since it was hashed\n")
    remember(*refs, diffs(src, _edited(src, tmp_path / "again"))[1])
    assert diffmemo.recall(("m.py", "", "", "", "")) is None and not diffmemo._memo


def test_the_memo_stays_within_its_budget() -> None:
    diffmemo.clear()
    chunk = b"x" * (diffmemo.BUDGET // 8)
    for i in range(20):
        diffmemo.store((f"p{i}", "100644", str(i), "100644", str(i)), chunk)
    assert diffmemo._size <= diffmemo.BUDGET
    assert diffmemo.recall(("p19", "100644", "19", "100644", "19")) == chunk
    assert diffmemo.recall(("p0", "100644", "0", "100644", "0")) is None
    diffmemo.store(("big", "", "", "", ""), b"y" * diffmemo.BUDGET)
    assert diffmemo.recall(("big", "", "", "", "")) is None
    diffmemo.clear()


def _edited(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    (dest / "m.py").write_text(NEW)
    return dest
