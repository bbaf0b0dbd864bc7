"""Journey synthesis writes model-chosen paths and contents: never outside the draft tree, never through
a symbolic link a seed repository holds (`journey.synthesis.gates.apply_files`, `parse_candidate`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.protocols.journey.synthesis.gates import apply_files, parse_candidate


def test_model_paths_outside_the_tree_are_refused() -> None:
    base = {"request": "r", "plain": "p", "acceptance_criteria": ["c"], "f2p": ["n"],
            "tests": [{"path": "tests_hidden/t.py", "content": ""}]}
    for bad in ("../x.py", "/etc/passwd", ".git/config", "a/../../x"):
        with pytest.raises(ValueError, match="inside its tree"):
            parse_candidate({**base, "files": [{"path": bad, "content": "x"}]}, "tests_hidden")
    with pytest.raises(ValueError, match="must be under tests_hidden/"):
        parse_candidate({**base, "files": [{"path": "a.py", "content": "x"}],
                         "tests": [{"path": "conftest.py", "content": ""}]}, "tests_hidden")


def test_writes_replace_links_and_refuse_paths_through_them(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("keep")
    tree = tmp_path / "tree"
    tree.mkdir()
    os.symlink(outside, tree / "linked_dir")
    os.symlink(outside / "secret.txt", tree / "linked_file.py")
    apply_files(tree, {"linked_file.py": "new contents"})
    assert not (tree / "linked_file.py").is_symlink() and (tree / "linked_file.py").read_text() == "new contents"
    with pytest.raises(ValueError, match="goes through the symbolic link 'linked_dir'"):
        apply_files(tree, {"linked_dir/secret.txt": "overwritten"})
    os.symlink(outside / "secret.txt", tree / "gone.py")
    apply_files(tree, {"gone.py": None})  # deleting removes the link, not its target
    assert not (tree / "gone.py").exists() and (outside / "secret.txt").read_text() == "keep"
