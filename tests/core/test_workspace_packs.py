"""`packs.write_pack`: git itself reads the pack and index reqbench writes, and an object whose bytes do not
match its id leaves nothing behind."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from reqbench.core.workspace.git import git_env, run_git, shared_repository
from reqbench.core.workspace.packs import BLOB, TREE, ObjectChanged, PackObject, write_pack


def _blob(data: bytes) -> PackObject:
    sha = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return PackObject(BLOB, sha, len(data), lambda: iter((data[:3], data[3:])))


def test_git_verifies_and_reads_the_pack(tmp_path: Path) -> None:
    big = bytes(range(256)) * 400  # binary, several compressor blocks
    small = _blob(b"hello\n")
    assert small.sha == "ce013625030ba8dba906f756967f9e9ca394464a"  # `printf 'hello\n' | git hash-object --stdin`
    tree_body = b"100644 hello.txt\0" + bytes.fromhex(small.sha)
    tree_sha = hashlib.sha1(b"tree %d\0" % len(tree_body) + tree_body).hexdigest()
    tree = PackObject(TREE, tree_sha, len(tree_body), lambda: iter((tree_body,)))
    objects = tmp_path / "objects"
    pack = write_pack(objects / "pack", [small, _blob(big), tree, small])  # the duplicate is written once
    run_git(["verify-pack", str(pack.with_suffix(".idx"))], git_env(shared_repository()))
    env = git_env(shared_repository(), objects=objects)
    assert run_git(["cat-file", "-p", small.sha], env).stdout == b"hello\n"
    assert run_git(["cat-file", "-p", _blob(big).sha], env).stdout == big
    assert run_git(["ls-tree", tree_sha], env).stdout == f"100644 blob {small.sha}\thello.txt\n".encode()
    assert run_git(["count-objects", "-v"], env).stdout.count(b"in-pack: 3") == 1


def test_an_object_that_changed_while_written_raises_and_leaves_no_pack(tmp_path: Path) -> None:
    lying = PackObject(BLOB, _blob(b"original\n").sha, 9, lambda: iter((b"replaced\n",)))
    with pytest.raises(ObjectChanged):
        write_pack(tmp_path / "pack", [_blob(b"fine\n"), lying])
    assert list((tmp_path / "pack").iterdir()) == []
