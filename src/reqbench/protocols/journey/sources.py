"""Journey instances on real releases: the base repository, reference patches and hidden tests may be
fetched at run time instead of being folders and files of the instance.

* ``repo:`` a folder of the instance, or a repository source spec (``pypi:NAME==VERSION#sha256=...``,
  ``pypi-diff:``, ``git:``, ``archive:``; see `core.workspace.sources`).
* ``reference_patch:`` a patch file, or ``pypi-diff:NAME==A..B#paths=...`` -- the maintainers' own change
  between two releases (SWE-Journey §3.2: subtasks follow the project's real history).
* ``testbed.hidden_tests:`` a folder, or a source spec whose tree is cut down to
  ``testbed.hidden_include`` (e.g. only ``tests``), so the hidden directory never carries the
  release's own library code (which would shadow the workspace under test).

Fetched trees live in the cache (`core.cache_location.cache_root`), content-addressed and read-only.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from reqbench.core.cache_location import cache_root
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json
from reqbench.core.workspace.sources import _publish, read_patch
from reqbench.core.workspace.sources import is_source_spec as is_source
from reqbench.core.workspace.sources import source_tree as tree
from reqbench.core.workspace.trees import copy_tree, tree_hash

__all__ = ["hidden_tree", "is_source", "patch", "tree"]


def patch(root: Path, text: str) -> str:
    """The patch `text` names: a ``pypi-diff:`` change or a patch file of the instance."""
    return read_patch(root, text, "reference patch")


def hidden_tree(root: Path, text: str, include: list[str]) -> Path:
    """The hidden directory: a folder of the instance, or the `include`d top-level entries of a fetched
    tree copied into their own cache entry (nothing else of the release is visible to the tests)."""
    if not is_source(text):
        return root / text
    full = tree(root, text)
    if not include:
        raise InputError("a fetched hidden_tests source needs hidden_include (e.g. [tests])", item=text)
    missing = [name for name in include if not (full / name).exists()]
    if missing:
        raise InputError(f"hidden_include entry {missing[0]!r} is not in the fetched tree", item=text)
    key = sha256_json({"tree": tree_hash(full), "include": sorted(include)})

    def build(out: Path) -> None:
        out.mkdir()
        for name in include:
            src, dest = full / name, out / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                copy_tree(src, dest)
            else:
                shutil.copyfile(src, dest)

    return _publish(build, cache_root() / "journey-hidden" / key)
