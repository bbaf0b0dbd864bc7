"""The in-process diff (`textdiff`) and apply (`textapply`) against real git: same patch text for simple
edits, same tree after `git apply`, and for `apply` the invariant "git's tree, or deferral"."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from reqbench.core.workspace import PatchApplyError, apply_patch, materialize, tree_hash
from reqbench.core.workspace.textapply import apply_text
from tests.core.textpatch_support import compare_apply, diffs, encoded, git_apply, snapshot

BODY = "".join(f"line {i}\n" for i in range(1, 21))

# name -> (base files, new files); None deletes, bytes are written as they are
CASES: dict[str, tuple[dict[str, str], dict[str, str | None]]] = {
    "modify": ({"m.py": BODY}, {"m.py": BODY.replace("line 10\n", "line ten\n")}),
    "add": ({"m.py": BODY}, {"pkg/new.py": "def f():\n    return 1\n"}),
    "delete": ({"m.py": BODY, "pkg/old.py": "x = 1\ny = 2\n"}, {"pkg/old.py": None}),
    "first line": ({"m.py": BODY}, {"m.py": BODY.replace("line 1\n", "first\n", 1)}),
    "last line": ({"m.py": BODY}, {"m.py": BODY.replace("line 20\n", "last\n")}),
    "no newline added": ({"m.py": BODY}, {"m.py": BODY + "tail"}),
    "no newline removed": ({"m.py": BODY + "tail"}, {"m.py": BODY + "tail\n"}),
    "no newline kept": ({"m.py": "a\nb"}, {"m.py": "a\nc"}),
    "two hunks": ({"m.py": BODY}, {"m.py": BODY.replace("line 2\n", "two\n").replace("line 18\n", "")}),
    "one hunk, two changes": ({"m.py": BODY}, {"m.py": BODY.replace("line 5\n", "5\n").replace("line 9\n", "")}),
    "several files": ({"a.py": BODY, "b/c.py": BODY, "b/d.txt": "x\n"},
                      {"a.py": BODY + "more\n", "b/c.py": None, "b/d.txt": "y\n", "b-e.py": "new\n"}),
    "unicode": ({"caf\u00e9.py": "s = '\u00fc'\n" + BODY}, {"caf\u00e9.py": "s = '\u2603'\n" + BODY}),
    "space in name": ({"a b.txt": "x\n"}, {"a b.txt": "y\n"}),
    "empty file added": ({"m.py": BODY}, {"pkg/__init__.py": ""}),
    "empty file deleted": ({"m.py": BODY, "e.py": ""}, {"e.py": None}),
    "emptied": ({"m.py": "a\nb\n"}, {"m.py": ""}),
    "filled": ({"m.py": ""}, {"m.py": "a\nb\n"}),
    "funcname": ({"m.py": "class A:\n    def f(self):\n" + "".join(f"        x{i} = {i}\n" for i in range(9))},
                 {"m.py": "class A:\n    def f(self):\n" + "".join(f"        x{i} = {i * 2}\n" for i in range(9))}),
    "long funcname": ({"m.py": "def " + "n" * 100 + "():\n" + BODY}, {"m.py": "def " + "n" * 100 + "():\n" + BODY[:-2]}),
    "file replaced by directory": ({"a": "x\n", "a.b": "y\n"}, {"a": None, "a/x": "z\n"}),
    "executable": ({"run.sh": "#!/bin/sh\necho 1\n"}, {"run.sh": "#!/bin/sh\necho 2\n"}),
    "crlf": ({"w.bat": "a\r\nb\r\n"}, {"w.bat": "a\r\nc\r\n"}),
}


def write_tree(root: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        path = root / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        if rel.endswith(".sh"):
            os.chmod(path, 0o755)


def trees(tmp_path: Path, base: dict[str, str], new: dict[str, str | None]) -> tuple[Path, Path]:
    old_root, new_root = tmp_path / "base", tmp_path / "new"
    old_root.mkdir()
    write_tree(old_root, base)
    shutil.copytree(old_root, new_root, symlinks=True)
    write_tree(new_root, new)
    return old_root, new_root


@pytest.mark.parametrize("case", sorted(CASES))
def test_in_process_diff_is_gits_patch_and_applies_to_the_new_tree(tmp_path: Path, case: str) -> None:
    base, new = trees(tmp_path, *CASES[case])
    mine, theirs = diffs(base, new)
    assert mine is not None, "the change is plain text: no git needed"
    assert mine == theirs
    for in_process in (False, True):
        target = tmp_path / f"target-{in_process}"
        shutil.copytree(base, target, symlinks=True)
        apply_patch(target, mine, in_process=in_process)
        assert tree_hash(target) == tree_hash(new)
    assert apply_text(tmp_path / "target-False", encoded(mine)) is False  # now a conflict: git decides


def blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_hand_computed_patch(tmp_path: Path) -> None:
    old_m, new_m = b"def f():\n    a = 1\n    b = 2\n", b"def f():\n    a = 1\n    b = 3\n"
    base, new = trees(tmp_path, {"pkg/m.py": old_m.decode()}, {"pkg/m.py": new_m.decode(), "n.txt": "hi"})
    mine, _ = diffs(base, new)
    assert blob(b"hi") == "32f95c0d1244a78b2be1bab8de17906fabb2c4a8"
    assert mine == (
        "diff --git a/n.txt b/n.txt\n"
        "new file mode 100644\n"
        f"index {'0' * 40}..{blob(b'hi')}\n"
        "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n"
        "diff --git a/pkg/m.py b/pkg/m.py\n"
        f"index {blob(old_m)}..{blob(new_m)} 100644\n"
        "--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,3 +1,3 @@\n def f():\n     a = 1\n-    b = 2\n+    b = 3\n"
    )


@pytest.mark.parametrize("what", ["nul", "latin-1", "mode change", "symlink", "big file"])
def test_what_is_not_plain_text_goes_through_git_whole(tmp_path: Path, what: str) -> None:
    base, new = trees(tmp_path, {"a.py": BODY, "b.py": BODY}, {"a.py": BODY + "x\n"})
    if what == "nul":
        (new / "b.py").write_bytes(b"text\0more\n")
    elif what == "latin-1":
        (new / "b.py").write_bytes("caf\u00e9\n".encode("latin-1"))
    elif what == "mode change":
        os.chmod(new / "b.py", 0o755)
    elif what == "symlink":
        os.symlink("a.py", new / "link.py")
    else:
        (new / "b.py").write_text("x\n" * 200_000)
    mine, theirs = diffs(base, new)
    assert mine is None
    target = tmp_path / "target"
    shutil.copytree(base, target, symlinks=True)
    apply_patch(target, theirs)
    assert tree_hash(target) == tree_hash(new)


def test_workspace_diff_and_apply_use_the_in_process_paths(tmp_path: Path) -> None:
    base, _ = trees(tmp_path, {"m.py": BODY}, {})
    ws = materialize(base, tmp_path / "ws")
    (ws.path / "m.py").write_text(BODY.replace("line 3\n", "three\n"))
    patch = ws.diff()
    assert patch == diffs(base, ws.path)[1]
    fresh = materialize(base, tmp_path / "fresh")
    fresh.apply(patch)
    assert tree_hash(fresh.path) == tree_hash(ws.path)


@pytest.mark.parametrize("ending", ["\n\n", "\n\n\n"])
def test_blank_lines_after_the_last_section_are_ignored_as_git_ignores_them(tmp_path: Path, ending: str) -> None:
    base, new = trees(tmp_path, {"m.py": BODY}, {"m.py": BODY.replace("line 10\n", "ten\n")})
    patch = diffs(base, new)[1].rstrip("\n") + ending
    assert compare_apply(base, patch, tmp_path) is True


@pytest.mark.parametrize("why", ["crlf patch", "context moved", "mode differs", "added path exists", "deleted path missing",
                                 "leading text", "no index line", "same file twice"])
def test_apply_defers_to_git_and_git_decides(tmp_path: Path, why: str) -> None:
    base, new = trees(tmp_path, {"m.py": BODY, "gone.py": "x\n"},
                      {"m.py": BODY.replace("line 10\n", "ten\n"), "gone.py": None, "n.py": "n\n"})
    patch = diffs(base, new)[1]
    if why == "context moved":
        (base / "m.py").write_text("extra\n" + BODY)  # git applies with an offset
    elif why == "mode differs":
        os.chmod(base / "m.py", 0o755)  # git warns and writes mode 100644
    elif why == "added path exists":
        (base / "n.py").write_text("n\n")
    elif why == "deleted path missing":
        (base / "gone.py").unlink()
    elif why == "crlf patch":
        patch = patch.replace("\n", "\r\n")
    elif why == "leading text":
        patch = "Subject: a commit message\n\n" + patch
    elif why == "no index line":
        patch = "\n".join(line for line in patch.split("\n") if not line.startswith("index "))
    else:
        patch += patch.split("diff --git a/n.py")[0]
    assert compare_apply(base, patch, tmp_path) is False
    mine = tmp_path / "via-apply-patch"
    shutil.copytree(base, mine, symlinks=True)
    try:
        apply_patch(mine, patch)
        error = None
    except PatchApplyError as exc:
        error = exc.rule
    theirs = tmp_path / "via-git"
    shutil.copytree(base, theirs, symlinks=True)
    assert error == git_apply(theirs, patch)
    assert snapshot(mine) == snapshot(theirs)


def test_a_conflict_keeps_gits_message_and_writes_nothing(tmp_path: Path) -> None:
    base, new = trees(tmp_path, {"README": "a\n", "m.py": BODY},
                      {"README": "b\n", "m.py": BODY.replace("line 4\n", "four\n")})
    patch = diffs(base, new)[1]
    (base / "README").write_text("conflicting\n")
    before = snapshot(base)
    with pytest.raises(PatchApplyError) as err:
        apply_patch(base, patch)
    assert "patch does not apply: patch failed: README:1" in str(err.value)
    assert snapshot(base) == before


def test_deleting_the_last_files_removes_directories_as_git_does(tmp_path: Path) -> None:
    base, new = trees(tmp_path, {"a/b/c.py": "x\n", "a/d.py": "y\n", "a/b/e.py": "z\n"},
                      {"a/b/c.py": None, "a/b/e.py": None, "a/d.py": "w\n"})
    patch = diffs(base, new)[1]
    assert compare_apply(base, patch, tmp_path) is True
    assert not (tmp_path / "mine" / "a" / "b").exists()
