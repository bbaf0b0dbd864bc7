"""Archive sources: good archives unpack into a baseline; malicious ones are refused by name."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.workspace import RepoSource, materialize, tree_hash


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))


def add_file(tf: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tf.addfile(info, io.BytesIO(data))


def add_link(tf: tarfile.TarFile, name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    tf.addfile(info)


def make_tar(path: Path, build) -> Path:  # type: ignore[no-untyped-def]
    with tarfile.open(path, "w:gz") as tf:
        build(tf)
    return path


def test_tar_source_strips_single_top_dir_and_stays_pristine(tmp_path: Path) -> None:
    def build(tf: tarfile.TarFile) -> None:
        add_file(tf, "proj-1.0/a.py", b"A = 1\n")
        add_file(tf, "proj-1.0/bin/tool", b"#!/bin/sh\n", 0o755)
        add_link(tf, "proj-1.0/b.py", "a.py")
        add_link(tf, "proj-1.0/copy.py", "proj-1.0/a.py", tarfile.LNKTYPE)

    archive = make_tar(tmp_path / "proj.tar.gz", build)
    source = RepoSource.parse("archive:proj.tar.gz", tmp_path)
    ws = materialize(source, tmp_path / "ws")
    assert sorted(p.name for p in ws.path.iterdir()) == ["a.py", "b.py", "bin", "copy.py"]
    assert os.readlink(ws.path / "b.py") == "a.py"
    assert os.stat(ws.path / "bin" / "tool").st_mode & stat.S_IXUSR
    baseline = tree_hash(ws.base)
    (ws.path / "copy.py").write_text("changed\n")  # the hard-link member is a copy, not a link
    (ws.path / "a.py").write_text("changed\n")
    assert tree_hash(ws.base) == baseline
    assert "proj.tar.gz" not in str(ws.base) and archive.is_file()
    assert source.resolved().sha256 is not None


def test_zip_source_with_symlink(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "r.zip", "w") as zf:
        zf.writestr("x/y.txt", "hello\n")
        zf.writestr("top.txt", "top\n")
        link = zipfile.ZipInfo("ln")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "x/y.txt")
    ws = materialize(tmp_path / "r.zip", tmp_path / "ws")
    assert (ws.path / "x" / "y.txt").read_text() == "hello\n"
    assert os.readlink(ws.path / "ln") == "x/y.txt"


def test_archive_sha256_pin_is_checked(tmp_path: Path) -> None:
    make_tar(tmp_path / "p.tar.gz", lambda tf: add_file(tf, "a", b"a"))
    with pytest.raises(InputError, match="sha256 mismatch"):
        materialize(RepoSource.parse("archive:p.tar.gz#sha256=" + "0" * 64, tmp_path), tmp_path / "ws")


MALICIOUS_TARS = {
    "traversal": ("../evil.txt", lambda tf: add_file(tf, "../evil.txt", b"x")),
    "absolute": ("/tmp/evil.txt", lambda tf: add_file(tf, "/tmp/evil.txt", b"x")),
    "git_entry": ("repo/.git/config", lambda tf: add_file(tf, "repo/.git/config", b"x")),
    "symlink_escape": ("out", lambda tf: add_link(tf, "out", "../../etc")),
    "symlink_absolute": ("abs", lambda tf: add_link(tf, "abs", "/etc/passwd")),
    "hardlink_escape": ("h", lambda tf: add_link(tf, "h", "../secret", tarfile.LNKTYPE)),
    "symlink_chain": ("up2", lambda tf: (add_link(tf, "d/up", ".."), add_link(tf, "up2", "d/up/.."))),
    "write_through_link": ("a/evil", lambda tf: (add_link(tf, "a", "."), add_file(tf, "a/evil", b"x"))),
}


@pytest.mark.parametrize("case", sorted(MALICIOUS_TARS))
def test_malicious_tar_is_refused_naming_archive_and_member(tmp_path: Path, case: str) -> None:
    member, build = MALICIOUS_TARS[case]
    archive = make_tar(tmp_path / "bad.tar.gz", build)
    if case == "write_through_link":  # lexically fine and harmless: stays inside the tree
        ws = materialize(archive, tmp_path / "ws")
        assert (ws.path / "evil").read_bytes() == b"x"
        return
    with pytest.raises(InputError) as err:
        materialize(archive, tmp_path / "ws")
    assert "bad.tar.gz" in str(err.value) and member in str(err.value)
    assert not (tmp_path / "ws").exists()
    assert not (tmp_path / "evil.txt").exists() and not Path("/tmp/evil.txt").exists()
    assert not list((tmp_path / "cache").glob("archives/*"))  # nothing half-written in the cache


@pytest.mark.parametrize("name", ["../../zip-evil", "/abs-evil", "pkg/.git/HEAD"])
def test_malicious_zip_is_refused(tmp_path: Path, name: str) -> None:
    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as zf:
        zf.writestr("ok.txt", "fine")
        zf.writestr(name, "evil")
    with pytest.raises(InputError) as err:
        materialize(tmp_path / "bad.zip", tmp_path / "ws")
    assert "bad.zip" in str(err.value) and name in str(err.value)


def test_zip_symlink_escaping_is_refused(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as zf:
        link = zipfile.ZipInfo("sub/ln")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "../../outside")
    with pytest.raises(InputError, match="sub/ln"):
        materialize(tmp_path / "bad.zip", tmp_path / "ws")


def test_corrupt_and_missing_archives_are_input_errors(tmp_path: Path) -> None:
    (tmp_path / "broken.tar.gz").write_bytes(b"not a tarball")
    with pytest.raises(InputError, match="broken.tar.gz"):
        materialize(tmp_path / "broken.tar.gz", tmp_path / "ws")
    with pytest.raises(InputError, match="missing.zip"):
        materialize(RepoSource.parse("archive:missing.zip", tmp_path), tmp_path / "ws2")
