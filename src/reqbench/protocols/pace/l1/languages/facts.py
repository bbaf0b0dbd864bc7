"""Language-neutral facts about one file: declarations with full bodies, and integration bindings.

A `Decl` is a function, class or method with its owner-qualified name (``Owner.method``), full text and
the names its body calls or references. A `Binding` is an integration edge observed in the file: a call,
assignment, import/export, registry entry or configuration binding (appendix §13: an integration claim
needs a source, a target and one of these observed edges).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class EdgeKind(StrEnum):
    CALL = "call"
    ASSIGNMENT = "assignment"
    IMPORT = "import"
    EXPORT = "export"
    REGISTRY = "registry"
    CONFIG = "config"


@dataclass
class Decl:
    file: str
    qname: str
    """Owner-qualified name within the file: ``func``, ``Class``, ``Class.method``."""
    kind: str
    """function | class | method."""
    owner: str | None
    start_line: int
    end_line: int
    header: str
    """The declaration line(s) up to the body (signature); names alone prove nothing."""
    body: str
    """The body text without docstring."""
    text: str
    calls: list[str] = field(default_factory=list)
    """Callee expressions as written (``self._update``, ``cached``, ``keys.hashkey``)."""
    refs: list[str] = field(default_factory=list)
    """Identifiers referenced in the body (used for reference edges such as `_cache(SLRUCache(...))`)."""
    params: list[str] = field(default_factory=list)
    variadic: bool = False
    """True when the signature has *args/**kwargs (a legal interface L0 must not reject)."""
    decorators: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.qname.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        return f"{self.file}::{self.qname}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Binding:
    file: str
    line: int
    kind: EdgeKind
    source: str
    """Where the edge starts: the enclosing declaration, ``<module>``, or a registry/config key."""
    target: str
    """The referenced name (last segment is what the call graph resolves)."""
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "kind": self.kind.value, "source": self.source,
                "target": self.target, "text": self.text}


@dataclass
class FileFacts:
    path: str
    language: str
    decls: list[Decl] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    parse_ok: bool = True
    """False when the parser recovered from syntax errors: the scope is then not complete."""
    dynamic: list[str] = field(default_factory=list)
    """Constructs that can define names invisibly (star imports, module __getattr__, globals())."""
    all_names: list[str] | None = None
    """Literal ``__all__`` entries, or None when absent."""
    all_dynamic: bool = False
    """``__all__`` exists but is not a literal list/tuple of strings."""
