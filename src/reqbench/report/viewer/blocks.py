"""HTML for `reqbench.core.views` blocks: how a protocol's row and run views look in the viewer and in the
HTML report. Every string in a block is escaped here (the blocks carry agent output); ``name`` style hooks
keep only ``[A-Za-z0-9_-]``. `row_link` turns a `RowLink` into an address (None: plain text, as in the
self-contained report)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from reqbench.core.views import (
    BLOCK_TYPES,
    Badge,
    Block,
    Cell,
    Chat,
    Code,
    Columns,
    Diff,
    Facts,
    Fold,
    Group,
    Heading,
    Inline,
    Json,
    Message,
    Muted,
    Paragraph,
    Preformatted,
    Raster,
    RowLink,
    Status,
    Strong,
    TableBlock,
    fmt,
)
from reqbench.report.viewer.render import details, diff_html, esc, json_block, kv_table, pre, status_span

RowLinker = Callable[[str], str] | None
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def style(name: str) -> str:
    """A style hook as CSS class names (each space-separated word kept to ``[A-Za-z0-9_-]``)."""
    return " ".join(w for w in (_UNSAFE.sub("", part) for part in str(name).split()) if w)


def _cls(*names: str) -> str:
    joined = " ".join(style(n) for n in names if n).strip()
    return f' class="{joined}"' if joined else ""


def inline_html(part: Inline, link: RowLinker = None) -> str:
    if isinstance(part, Status):
        return status_span(part.value, part.label)
    if isinstance(part, Code):
        return f"<code>{esc(part.text)}</code>"
    if isinstance(part, Muted):
        return f'<span class="meta">{esc(part.text)}</span>'
    if isinstance(part, Strong):
        return f"<b>{esc(part.text)}</b>"
    if isinstance(part, Badge):
        return f'<span class="badge">{esc(part.text)}</span>'
    if isinstance(part, RowLink):
        return f'<a href="{esc(link(part.key))}">{esc(part.text)}</a>' if link else esc(part.text)
    return esc(fmt(part))


def line_html(parts: Sequence[Inline], link: RowLinker = None) -> str:
    return " ".join(inline_html(p, link) for p in parts)


def cell_html(cell: Cell, link: RowLinker = None) -> str:
    if not isinstance(cell, tuple):
        return inline_html(cell, link)
    return "".join(block_html(c, link) if isinstance(c, BLOCK_TYPES) else inline_html(c, link) + " "
                   for c in cell).strip()


def _table(block: TableBlock, link: RowLinker) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in block.columns)
    rows = []
    for i, row in enumerate(block.rows):
        cells = "".join(f'<td{_cls("num") if isinstance(c, int | float) and not isinstance(c, bool) else ""}>'
                        f"{cell_html(c, link)}</td>" for c in row)
        rows.append(f'<tr{_cls("marked") if i in block.marked else ""}>{cells}</tr>')
    return f'<table{_cls(block.name)}><tr>{head}</tr>{"".join(rows)}</table>'


def _message(message: Message, link: RowLinker) -> str:
    notes = "".join(f'<div class="meta">{line_html(n, link)}</div>' for n in message.notes)
    return (f'<div class="msg {style(message.role)} turn"><div class="meta">{esc(message.header)}</div>'
            f"{esc(message.text)}{notes}</div>")


def _raster(block: Raster, link: RowLinker) -> str:
    href = esc(link(block.link)) if link and block.link else ""

    def cell(key: str, value: bool | None) -> str:
        title = f"{esc(key)}: {esc(value)}"
        inner = f'<a href="{href}" title="{title}"></a>' if href else ""
        state = "on" if value is True else "off" if value is False else "na"
        return f'<td class="{state}" title="{title}">{inner}</td>'
    return f'<table class="raster"><tr>{"".join(cell(k, v) for k, v in block.cells)}</tr></table>'


def block_html(block: Block, link: RowLinker = None) -> str:
    """One block as HTML."""
    if isinstance(block, Heading):
        level = min(max(block.level, 2), 5)
        return f"<h{level}>{esc(block.text)}</h{level}>"
    if isinstance(block, Paragraph):
        return f"<p{_cls(block.name)}>{line_html(block.parts, link)}</p>"
    if isinstance(block, Facts):
        return kv_table(list(block.items))
    if isinstance(block, TableBlock):
        return _table(block, link)
    if isinstance(block, Fold):
        return details(line_html(block.summary, link), blocks_html(block.body, link), open_=block.open,
                       cls=style(block.name))
    if isinstance(block, Diff):
        return diff_html(block.text)
    if isinstance(block, Preformatted):
        return pre(block.text)
    if isinstance(block, Json):
        return json_block(block.value, block.title)
    if isinstance(block, Chat):
        return f'<div class="chat">{"".join(_message(m, link) for m in block.messages)}</div>'
    if isinstance(block, Raster):
        return _raster(block, link)
    if isinstance(block, Group):
        return f"<div{_cls(block.name)}>{blocks_html(block.blocks, link)}</div>"
    if isinstance(block, Columns):
        inner = "".join(block_html(g, link) for g in block.groups)
        return f'<div{_cls("two", "wide" if block.wide else "", block.name)}>{inner}</div>'
    raise TypeError(f"not a view block: {type(block).__name__}")


def blocks_html(blocks: Sequence[Block], link: RowLinker = None) -> str:
    return "".join(block_html(b, link) for b in blocks)

