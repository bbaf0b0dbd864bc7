"""One parser of the paths a patch touches (`core.workspace.patch_paths`), on hand-written patches and on a
patch real git writes: renames, copies, deletions, /dev/null, quoted names, names with spaces, binary files,
and hunk lines that look like headers."""

from __future__ import annotations

import subprocess
from pathlib import Path

from reqbench.core.workspace.patch_paths import FileChange, display_path, patch_files, patch_paths, unquote

RENAME_WITH_EDIT = """\
diff --git a/old.txt b/new.txt
similarity index 54%
rename from old.txt
rename to new.txt
index ce01362..d156cfe 100644
--- a/old.txt
+++ b/new.txt
@@ -1 +1,2 @@
 hello
+-- x
"""

PURE_RENAME_AND_COPY = """\
diff --git a/src/a.py b/lib/a.py
similarity index 100%
rename from src/a.py
rename to lib/a.py
diff --git a/lib/b.py b/lib/c.py
similarity index 100%
copy from lib/b.py
copy to lib/c.py
"""

QUOTED_AND_SPACED = """\
diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"
index 975fbec..1a78173 100644
--- "a/caf\\303\\251.py"
+++ "b/caf\\303\\251.py"
@@ -1 +1 @@
-y
+y2
diff --git a/d/with b/x.txt b/d/with b/x.txt
index bca70f3..d169a2f 100644
--- a/d/with b/x.txt\t
+++ b/d/with b/x.txt\t
@@ -1 +1 @@
-q
+q2
diff --git "a/tab\\there.txt" "b/tab\\there.txt"
new file mode 100644
index 0000000..6550ffd
--- /dev/null
+++ "b/tab\\there.txt"
@@ -0,0 +1,2 @@
+n
+--- dashes
"""

DELETE_AND_BINARY = """\
diff --git a/del.txt b/del.txt
deleted file mode 100644
index b680253..0000000
--- a/del.txt
+++ /dev/null
@@ -1,2 +0,0 @@
--- not a header
-+++ nor this
diff --git a/img.png b/img.png
new file mode 100644
index 0000000..1592e5c
GIT binary patch
literal 3
KcmZQzWMT#Y01f~L

literal 0
HcmV?d00001

diff --git a/bin.dat b/bin.dat
index 8352675..1592e5c 100644
Binary files a/bin.dat and b/bin.dat differ
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
"""

PLAIN_UNIFIED = """\
--- a/pkg/mod.py\t2026-01-01 00:00:00.000000000 +0000
+++ b/pkg/mod.py\t2026-01-02 00:00:00.000000000 +0000
@@ -1,3 +1,3 @@
 a
--- b
+++ c
 d
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+x = 1
"""


def test_a_rename_names_both_sides_and_its_hunk_lines_are_content() -> None:
    assert patch_files(RENAME_WITH_EDIT) == [FileChange("old.txt", "new.txt")]
    assert patch_paths(RENAME_WITH_EDIT) == ["old.txt", "new.txt"]


def test_a_pure_rename_and_a_copy_without_hunks_take_their_from_and_to_lines() -> None:
    assert patch_files(PURE_RENAME_AND_COPY) == [FileChange("src/a.py", "lib/a.py"),
                                                 FileChange("lib/b.py", "lib/c.py")]
    assert patch_paths(PURE_RENAME_AND_COPY) == ["src/a.py", "lib/a.py", "lib/b.py", "lib/c.py"]


def test_quoted_names_are_decoded_and_tab_terminated_names_keep_their_spaces() -> None:
    assert patch_files(QUOTED_AND_SPACED) == [FileChange("café.py", "café.py"),
                                              FileChange("d/with b/x.txt", "d/with b/x.txt"),
                                              FileChange(None, "tab\there.txt")]
    assert patch_paths(QUOTED_AND_SPACED) == ["café.py", "d/with b/x.txt", "tab\there.txt"]


def test_deletions_binary_files_and_mode_changes_are_sections_and_dev_null_is_never_a_path() -> None:
    assert patch_files(DELETE_AND_BINARY) == [FileChange("del.txt", None),
                                              FileChange(None, "img.png", binary=True),
                                              FileChange("bin.dat", "bin.dat", binary=True),
                                              FileChange("run.sh", "run.sh")]
    assert patch_paths(DELETE_AND_BINARY) == ["del.txt", "img.png", "bin.dat", "run.sh"]


def test_a_plain_unified_diff_drops_timestamps_and_skips_header_lookalikes_in_hunks() -> None:
    assert patch_files(PLAIN_UNIFIED) == [FileChange("pkg/mod.py", "pkg/mod.py"), FileChange(None, "pkg/new.py")]
    assert patch_paths("") == []


def test_unquote_handles_escapes_octal_bytes_and_leaves_plain_names_alone() -> None:
    assert unquote('"a\\\\b\\"c\\nd"') == 'a\\b"c\nd'
    assert unquote('"\\377"') == "\udcff"  # an undecodable byte survives as a surrogate escape
    assert unquote("plain name") == "plain name"
    assert display_path(unquote('"caf\\303\\251\\377.py"')) == "café\\xff.py"


def test_a_patch_written_by_real_git_parses_to_the_hand_computed_paths(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=n", "-c", "core.quotePath=true",
                               *args], cwd=repo, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    (repo / "old.txt").write_text("one\ntwo\nthree\nfour\n")
    (repo / "sp ace.txt").write_text("x\n")
    (repo / "gone.txt").write_text("z\n")
    (repo / "bin.dat").write_bytes(b"\0\1\2")
    git("add", "-A")
    git("commit", "-qm", "base")
    git("mv", "old.txt", "new.txt")
    (repo / "sp ace.txt").write_text("x2\n")
    (repo / "gone.txt").unlink()
    (repo / "bin.dat").write_bytes(b"\0\1\3")
    (repo / "é\tx.txt").write_text("--- looks like a header\n")
    git("add", "-A")
    patch = git("diff", "--cached", "-M", "--binary")
    assert patch_paths(patch) == ["bin.dat", "gone.txt", "old.txt", "new.txt", "sp ace.txt", "é\tx.txt"]


def test_every_protocol_reads_touched_paths_through_the_one_parser() -> None:
    from reqbench.protocols.journey import env
    from reqbench.protocols.pace import repo
    from reqbench.protocols.specpath import runs

    assert repo.patch_paths is patch_paths and runs.patch_paths is patch_paths
    assert env.changed_files(RENAME_WITH_EDIT) == ["old.txt", "new.txt"]
    # renaming a forbidden file away touches it: the old side counts
    assert runs.forbidden_paths(RENAME_WITH_EDIT, ["old.*"]) == ["old.txt"]
