"""The one rule for what text may reach a terminal (`visible`), and the two ways out that need no rich:
`write` (plain text: ``reqbench --version``, JSON, a listing) and `route_python_messages` (Python's own
warnings and last-resort log lines, on stderr).

`visible` rewrites each C0 control character but tab and newline, DEL, each C1 control character
(``U+0080``-``U+009F``, among them the one-byte CSI ``U+009B``), the bidi controls and the line and
paragraph separators as the six characters ``\\uXXXX``, the way JSON and Python write them (so JSON output
stays valid and decodes to the same text). Tab and newline stay: they are layout.

`cli.consoles` builds rich's consoles on the same rule. This module is apart from it so that a command
printing nothing before its end (``reqbench --version``; ``reqbench run --quiet`` until its headline) starts
without importing rich, yet has Python's messages routed from its first line.
"""

from __future__ import annotations

import logging
import sys
import warnings
from typing import IO, TextIO

_KEPT = {0x09, 0x0A}  # tab and newline: layout
_HIDDEN = (
    [c for c in range(0x20) if c not in _KEPT] + [0x7F] + list(range(0x80, 0xA0))  # C0, DEL, C1
    + [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]  # bidi marks and controls
    + [0x2028, 0x2029]  # line and paragraph separators
)
_VISIBLE = {c: f"\\u{c:04x}" for c in _HIDDEN}


def visible(text: str) -> str:
    """`text` with every character a terminal would act on rather than show (see the module docstring)
    written out as ``\\uXXXX``; tab and newline stay."""
    return text.translate(_VISIBLE)


def write(stream: IO[str], text: object = "", *, end: str = "\n") -> None:
    """Write `text` to `stream` as it is but for `visible` (no markup, wrapping or tab expansion)."""
    stream.write(visible(str(text)) + end)
    stream.flush()


def _stderr() -> IO[str]:
    """stderr itself, also while a live progress bar has put rich's proxy in its place (as `cli.consoles`'
    `err_console` writes: Python's messages stay on stderr)."""
    return getattr(sys.stderr, "rich_proxied_file", sys.stderr)


class _ScreenLogHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            write(_stderr(), self.format(record))
        except Exception:
            self.handleError(record)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    write(_stderr(), warnings.formatwarning(message, category, filename, lineno, line), end="")


def route_python_messages() -> None:
    """Python's warnings and the log records no handler took (``logging.lastResort``) go to stderr through
    `visible` (a library's warning may quote a run's text: matplotlib names each glyph of a title it cannot
    draw)."""
    warnings.showwarning = _show_warning
    logging.lastResort = _ScreenLogHandler(logging.WARNING)
