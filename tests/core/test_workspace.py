"""Workspaces never write through to their source; diffs and patches round-trip exactly."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reqbench.core.errors import InputError, ReqbenchError
from reqbench.core.workspace import (
    PatchApplyError,
    RepoSource,
    Submission,
    apply_patch,
    diff_trees,
    materialize,
    tree_hash,
)
from reqbench.core.workspace.workspace import _inside


def make_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (root / "pkg" / "data.bin").write_bytes(b"\x00\x01\x02binary")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(root / "run.sh", 0o755)
    (root / "README").write_text("readme\n")
    os.symlink("pkg/mod.py", root / "alias.py")
    (root / ".gitattributes").write_text("* text eol=crlf\n")
    return root


def mutate(ws: Path) -> None:
    """Edit, delete, chmod, replace a file by a symlink and a symlink by a file, add binary + text."""
    (ws / "pkg" / "mod.py").write_text("def f():\n    return 2\n")
    (ws / "README").unlink()
    os.chmod(ws / "run.sh", 0o644)
    os.chmod(ws / "pkg" / "data.bin", 0o755)
    (ws / "alias.py").unlink()
    (ws / "alias.py").write_text("x = 1\n")
    os.symlink("../run.sh", ws / "pkg" / "link")
    (ws / "new.bin").write_bytes(bytes(range(256)))
    (ws / ".gitattributes").write_text("")


def test_workspace_edits_never_reach_the_source(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    before = tree_hash(src)
    ws = materialize(src, tmp_path / "ws")
    mutate(ws.path)
    (ws.path / "run.sh").write_text("replaced in place\n")  # same inode in a naive hard-link copy
    with open(ws.path / "pkg" / "data.bin", "r+b") as fh:
        fh.write(b"XX")
    assert tree_hash(src) == before
    assert (src / "run.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert os.stat(src / "run.sh").st_mode & 0o111
    assert os.stat(ws.path / "run.sh").st_ino != os.stat(src / "run.sh").st_ino


def test_diff_then_apply_reproduces_the_workspace_exactly(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    ws = materialize(src, tmp_path / "ws")
    assert ws.diff() == ""
    mutate(ws.path)
    patch = ws.diff()
    assert "deleted file mode 100644" in patch and "GIT binary patch" in patch
    assert "old mode 100755\nnew mode 100644" in patch
    assert patch == diff_trees(src, ws.path)
    fresh = materialize(src, tmp_path / "fresh")
    apply_patch(fresh.path, patch)
    assert tree_hash(fresh.path) == tree_hash(ws.path)
    # in-tree .gitattributes (eol=crlf) must not convert what the patch writes
    assert (fresh.path / "pkg" / "mod.py").read_bytes() == b"def f():\n    return 2\n"


def test_tree_hash_ignores_caches_and_git_but_sees_modes(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    h = tree_hash(src)
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"junk")
    (src / "pkg" / "y.pyc").write_bytes(b"junk")
    (src / ".git").mkdir()
    assert tree_hash(src) == h
    os.chmod(src / "README", 0o755)
    assert tree_hash(src) != h


def test_patch_that_does_not_apply_changes_nothing_and_names_the_file(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    ws = materialize(src, tmp_path / "ws")
    (ws.path / "README").write_text("changed\n")
    (ws.path / "pkg" / "mod.py").write_text("def f():\n    return 3\n")
    patch = ws.diff()
    target = materialize(src, tmp_path / "target")
    (target.path / "README").write_text("conflicting\n")
    before = tree_hash(target.path)
    with pytest.raises(PatchApplyError) as err:
        apply_patch(target.path, patch)
    assert "README" in str(err.value)
    assert isinstance(err.value, ReqbenchError)
    assert tree_hash(target.path) == before  # mod.py hunk was fine but nothing was half-applied
    with pytest.raises(PatchApplyError):
        apply_patch(target.path, "this is not a patch\n@@ garbage\n")


def test_submission_is_patch_plus_sha256(tmp_path: Path) -> None:
    sub = Submission.from_patch("abc")
    assert sub.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    ws = materialize(make_repo(tmp_path / "src"), tmp_path / "ws")
    (ws.path / "README").write_text("x\n")
    assert ws.submission().patch == ws.diff()


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_git_source_materialises_the_commit_not_the_work_tree(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "a.txt").write_text("v1\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    first = git("rev-parse", "HEAD", cwd=repo)
    (repo / "a.txt").write_text("v2\n")
    git("commit", "-qam", "two", cwd=repo)
    (repo / "a.txt").write_text("dirty work tree\n")
    repo_hash = tree_hash(repo)
    source = RepoSource.parse(f"git:repo@{first[:8]}", tmp_path)
    ws = materialize(source, tmp_path / "ws")
    assert (ws.path / "a.txt").read_text() == "v1\n"
    assert not (ws.path / ".git").exists()
    (ws.path / "a.txt").write_text("agent\n")
    assert tree_hash(repo) == repo_hash
    assert git("status", "--porcelain", cwd=repo) == "M a.txt"
    assert source.resolved().commit == first
    again = materialize(source, tmp_path / "ws2")  # served from the content-addressed cache
    assert (again.path / "a.txt").read_text() == "v1\n"
    with pytest.raises(InputError, match="unknown commit"):
        RepoSource.parse("git:repo@deadbeef", tmp_path).baseline()
    with pytest.raises(InputError, match="not found"):
        RepoSource.parse("git:nowhere@HEAD", tmp_path).baseline()


@pytest.mark.parametrize(("spec", "kind", "extra"), [
    ("dir:src", "dir", {}),
    ("src", "dir", {}),
    ("git:repo@abc123", "git", {"ref": "abc123"}),
    ("archive:r.tar.gz", "archive", {}),
    ("r.zip", "archive", {}),
    ("pypi:Attrs==23.1.0", "pypi", {"location": "Attrs==23.1.0"}),
    ("pypi:x==1.0#sha256=" + "a" * 64, "pypi", {"sha256": "a" * 64}),
])
def test_source_spec_parsing(tmp_path: Path, spec: str, kind: str, extra: dict[str, str]) -> None:
    src = RepoSource.parse(spec, tmp_path)
    assert src.kind == kind
    for key, value in extra.items():
        assert getattr(src, key) == value
    if kind != "pypi":
        assert Path(src.location).is_absolute() and Path(src.location).parent == tmp_path.resolve()


@pytest.mark.parametrize("spec", ["", "git:repo", "git:@abc", "pypi:requests", "pypi:x==1#md5=ab"])
def test_malformed_source_spec_is_input_error(tmp_path: Path, spec: str) -> None:
    with pytest.raises(InputError):
        RepoSource.parse(spec, tmp_path)


def test_missing_directory_source_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        materialize(tmp_path / "missing", tmp_path / "ws")


def test_workspace_inside_its_source_is_refused(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    with pytest.raises(InputError):
        materialize(src, src / "ws")


def test_inside_follows_links_and_physical_parents_like_resolving_both_paths(tmp_path: Path) -> None:
    r = tmp_path
    (r / "a/b/c").mkdir(parents=True)
    (r / "x").mkdir()
    os.symlink(r / "a", r / "x/link")
    os.symlink(r / "a/b", r / "lb")
    cases = {(r / "a/b/c/new", r / "a"): True, (r / "x/link/b/new", r / "a"): True, (r / "x/new", r / "a"): False,
             (r / "lb/c", r / "a/b"): True, (r / "a", r / "a/b"): False, (r / "a/b", r / "lb"): True,
             (r / "lb/../x", r / "a"): True, (r / "nope/deeper", r / "a"): False,
             (r / "a/new/../../x", r / "a"): False, (Path("/"), r): False, (r / "a", r): True}
    for (child, parent), inside in cases.items():
        assert _inside(child, parent) is inside, (child, parent)
    with pytest.raises(InputError):  # reached through a link to the source
        materialize(make_repo(r / "a/b/src"), r / "lb/src/ws")


def test_git_initialised_workspace_is_clean_and_its_git_never_enters_the_diff(tmp_path: Path) -> None:
    src = make_repo(tmp_path / "src")
    ws = materialize(src, tmp_path / "ws", git_init=True)
    assert git("status", "--porcelain", cwd=ws.path) == ""
    assert not (src / ".git").exists() and ws.diff() == ""
    (ws.path / "README").write_text("edited\n")
    assert git("status", "--porcelain", cwd=ws.path) == "M README"
    assert ".git/" not in ws.diff() and "+edited" in ws.diff()
