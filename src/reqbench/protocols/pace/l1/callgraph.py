"""A repository index and call graph over `FileFacts` (tree-sitter facts, any registered language).

`RepoIndex.build(root)` parses every indexed file once. Names resolve by their last segment, preferring
the same owner for ``self.x``/``cls.x`` and the same file otherwise — deliberately simple, deterministic,
and good enough to connect a changed declaration to its callers, registrations and exports.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.protocols.pace.l1.languages import Binding, Decl, EdgeKind, FileFacts, facts_for, is_indexed

SKIP_DIRS = {
    ".git",
    "__pycache__",
    ".venv",
    "venv",
    "node_modules",
    "build",
    "dist",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".eggs",
}
MAX_FILE_BYTES = 1_000_000


def iter_files(root: Path) -> list[str]:
    """Relative POSIX paths of indexed files under `root`, sorted; skips VCS, caches and build output."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for fn in filenames:
            rel = os.path.relpath(os.path.join(dirpath, fn), root).replace(os.sep, "/")
            if is_indexed(rel):
                out.append(rel)
    return sorted(out)


def last_segment(name: str) -> str:
    return name.replace(":", ".").rstrip(".").rsplit(".", 1)[-1]


@dataclass
class RepoIndex:
    root: Path
    files: dict[str, FileFacts] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    """Files not parsed (too large / unreadable): recorded as evidence omissions."""
    _by_name: dict[str, list[Decl]] = field(default_factory=lambda: defaultdict(list))
    _by_key: dict[str, Decl] = field(default_factory=dict)

    @classmethod
    def build(cls, root: Path, only: set[str] | None = None) -> RepoIndex:
        idx = cls(root=Path(root))
        for rel in iter_files(idx.root):
            if only is not None and rel not in only:
                continue
            path = idx.root / rel
            if path.is_symlink():  # a submitted link is not source (and is never followed)
                idx.skipped.append(rel)
                continue
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    idx.skipped.append(rel)
                    continue
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                idx.skipped.append(rel)
                continue
            idx.add(facts_for(rel, text))
        return idx

    def add(self, facts: FileFacts) -> None:
        self.files[facts.path] = facts
        for d in facts.decls:
            self._by_name[d.name].append(d)
            self._by_key[d.key] = d

    # -- lookups -----------------------------------------------------------------------------------
    def decl(self, key: str) -> Decl | None:
        return self._by_key.get(key)

    def decls(self) -> list[Decl]:
        return [d for f in self.files.values() for d in f.decls]

    def named(self, name: str) -> list[Decl]:
        return list(self._by_name.get(last_segment(name), []))

    def bindings(self) -> list[Binding]:
        return [b for f in self.files.values() for b in f.bindings]

    def owned_by(self, file: str, owner: str) -> list[Decl]:
        facts = self.files.get(file)
        return [d for d in facts.decls if d.owner == owner] if facts else []

    def resolve(self, name: str, context: Decl | None = None) -> list[Decl]:
        """Declarations a written name may denote, most specific first.

        ``self.x``/``cls.x``: the same owner, then the owner's base classes. ``A.x``: methods owned by
        ``A``. A bare name: the same file, then anywhere. An attribute call on anything else that stays
        ambiguous resolves to nothing rather than to a guess.
        """
        cands = self.named(name)
        if not cands:
            return []
        head = name.rpartition(".")[0]
        if head in ("self", "cls") and context is not None and context.owner:
            owners = [context.owner.split(".")[-1], *self._bases(context)]
            for owner in owners:
                hit = [d for d in cands if d.owner and d.owner.split(".")[-1] == owner]
                if hit:
                    return hit
            return []
        if head:
            owned = [d for d in cands if d.owner and d.owner.split(".")[-1] == last_segment(head)]
            if owned:
                return owned
            free = [d for d in cands if d.owner is None]
            return free if len({d.key for d in free}) == 1 else []
        if context is not None:
            same_file = [d for d in cands if d.file == context.file and d.owner is None]
            if same_file:
                return same_file
        return [d for d in cands if d.owner is None] or cands

    def _bases(self, decl: Decl) -> list[str]:
        cls = self.decl(f"{decl.file}::{decl.owner}") if decl.owner else None
        return [last_segment(r) for r in (cls.refs if cls else [])]

    def callees(self, decl: Decl) -> list[Decl]:
        out: dict[str, Decl] = {}
        for call in decl.calls:
            for d in self.resolve(call, decl)[:3]:
                out.setdefault(d.key, d)
        return list(out.values())

    def same_owner_helpers(self, decl: Decl, hops: int = 2) -> list[Decl]:
        """Methods of the same owner reached through ``self.``/``cls.``/``Owner.`` calls, <= `hops` hops."""
        if not decl.owner:
            return []
        seen = {decl.key}
        frontier, out = [decl], []
        for _ in range(hops):
            nxt = []
            for d in frontier:
                for call in d.calls:
                    head, _, _tail = call.rpartition(".")
                    if head not in ("self", "cls", decl.owner.split(".")[-1]):
                        continue
                    for h in self.owned_by(decl.file, decl.owner):
                        if h.name == last_segment(call) and h.key not in seen:
                            seen.add(h.key)
                            out.append(h)
                            nxt.append(h)
            frontier = nxt
        return out

    def edges_touching(self, names: set[str]) -> list[Binding]:
        """Bindings whose target (last segment) or source names one of `names`."""
        out = []
        for b in self.bindings():
            if last_segment(b.target) in names or last_segment(b.source.split("[")[0]) in names:
                out.append(b)
        return out

    def edge_kinds(self) -> set[EdgeKind]:
        return {b.kind for b in self.bindings()}
