"""Row and run pages as data: the typed blocks a protocol describes its own detail with.

A protocol says *what* a row (or a whole run) shows -- sections, facts, tables, folds, diffs, a chat, a
probe raster, columns side by side -- and the viewer and the HTML report decide *how* it looks
(`reqbench.report.viewer.blocks`). So no file under ``report/`` names a protocol, and a plugin protocol gets
rich row pages by returning the same blocks.

Two optional hooks on a protocol (`core.execute.suite.SuiteProtocol`):

- ``row_view(record: AttemptRecord) -> RowView``: the row page's protocol part for one attempt;
- ``run_view(outcomes) -> tuple[Block, ...]``: a run-wide part (e.g. SpecPath's probe raster).

Everything in a block is plain text: renderers escape every string (agent output is hostile). ``name``
fields are style hooks (CSS class names); renderers keep only ``[A-Za-z0-9_-]`` of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reqbench.core.execute.settings import ProtocolResult
from reqbench.core.execute.types import Row

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Status:
    """An outcome word (PASS, FAIL, Covered, done, ...), coloured by its value; ``label`` replaces the text
    shown (e.g. ``T1:done`` coloured as ``done``)."""

    value: Scalar
    label: str | None = None


@dataclass(frozen=True)
class Code:
    """Inline monospace text (a citation, a file path)."""

    text: str


@dataclass(frozen=True)
class Muted:
    """Secondary text (who said it, when, a note)."""

    text: str


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Badge:
    """A highlighted marker (e.g. ``target`` on the message a takeover target starts at)."""

    text: str


@dataclass(frozen=True)
class RowLink:
    """A link to another row page of the same run (plain text where pages have no links)."""

    text: str
    key: str


Inline = Scalar | Status | Code | Muted | Strong | Badge | RowLink


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 3


@dataclass(frozen=True)
class Paragraph:
    """A line of inline parts; ``name`` styles it (e.g. ``request`` for the message a target starts at)."""

    parts: tuple[Inline, ...]
    name: str = ""


@dataclass(frozen=True)
class Facts:
    """Label/value pairs (a two-column table)."""

    items: tuple[tuple[str, Scalar], ...]


@dataclass(frozen=True)
class TableBlock:
    """A table; each cell is one inline part or a tuple of parts and blocks. ``marked`` rows are highlighted."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    name: str = ""
    marked: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Fold:
    """A collapsible section: its summary line and its body."""

    summary: tuple[Inline, ...]
    body: tuple[Block, ...]
    open: bool = False
    name: str = ""


@dataclass(frozen=True)
class Diff:
    """A unified diff (highlighted); an empty text says nothing was changed."""

    text: str


@dataclass(frozen=True)
class Preformatted:
    """Text shown as it is (a log, a response), monospace."""

    text: str


@dataclass(frozen=True)
class Json:
    """A JSON value, folded under ``title``."""

    value: Any
    title: str = "JSON"


@dataclass(frozen=True)
class Message:
    """One message of a conversation: who (``user`` or ``assistant``), a header line, the text, notes."""

    role: Literal["user", "assistant"]
    header: str
    text: str
    notes: tuple[tuple[Inline, ...], ...] = ()


@dataclass(frozen=True)
class Chat:
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class Raster:
    """One cell per probe: True pass, False fail, None not run; with ``link`` each cell opens that row."""

    cells: tuple[tuple[str, bool | None], ...]
    link: str = ""


@dataclass(frozen=True)
class Group:
    """Blocks kept together under a style hook (e.g. a column, a list of Code Points)."""

    blocks: tuple[Block, ...]
    name: str = ""


@dataclass(frozen=True)
class Columns:
    """Groups side by side (the first ``wide`` one takes twice the width of the others when set)."""

    groups: tuple[Group, ...]
    name: str = ""
    wide: bool = False


Block = (Heading | Paragraph | Facts | TableBlock | Fold | Diff | Preformatted | Json | Chat | Raster | Group
         | Columns)
Cell = Inline | tuple[Inline | Block, ...]
BLOCK_TYPES = (Heading, Paragraph, Facts, TableBlock, Fold, Diff, Preformatted, Json, Chat, Raster, Group, Columns)
"""Every block type (``isinstance(value, BLOCK_TYPES)`` tells a block from an inline part)."""

GENERIC_SECTIONS = frozenset({"diff", "checks"})


@dataclass(frozen=True)
class RowView:
    """A protocol's part of a row page; ``shows`` names generic sections it already shows itself (``diff``:
    the submission diff, ``checks``: the check results), which the page then leaves out."""

    blocks: tuple[Block, ...]
    shows: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class AttemptRecord:
    """What a protocol's ``row_view`` reads: the row, the suite it came from, the attempt's result as the
    protocol's model (its ``result_model``, as the store read it back) and its artifacts by name
    (``artifact(name)`` -> text, None when the attempt has no such artifact)."""

    row: Row
    suite_path: Path
    result: ProtocolResult
    artifact: Callable[[str], str | None]

    def artifact_json(self, name: str) -> Any:
        """The artifact parsed as JSON (None when absent or not JSON)."""
        text = self.artifact(name)
        try:
            return None if text is None else json.loads(text)
        except ValueError:
            return None


def fmt(value: Any) -> str:
    """A value as a page shows it: None as a dash, floats to four significant digits."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else {} (stored results are read defensively: old runs, bad data)."""
    return value if isinstance(value, dict) else {}


def json_dict(value: Any) -> dict[str, Any]:
    """`value` as a JSON object, parsing it first when it is JSON text (older runs stored some maps as text);
    {} for anything else."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return as_dict(value)


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
