"""The command line's two consoles (stdout and stderr), shared by every command.

Both soft-wrap: a message is never broken at the terminal width by inserted newlines, so a command it
quotes (``reqbench run --resume RUN_DIR``, a path, a placeholder list) stays one copyable line; the
terminal folds long lines itself. Tables are laid out to the width as before (`report.tables`).
"""

from __future__ import annotations

from rich.console import Console

console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)
