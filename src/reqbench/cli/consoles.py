"""The command line's two consoles (stdout and stderr), shared by every command, built on the one rule for
what text may reach a terminal (`cli.screen`).

Most of what a command prints came from somewhere reqbench does not control: an agent's output, a tool's
``--version`` line recorded in provenance, a suite's ids and messages, a path. Such text may carry terminal
control sequences (set the window title, clear the screen, rewrite earlier lines, hide text, make a link),
Unicode bidi overrides that reorder what a reader sees, or rich markup (``[link=...]``, ``[bold]``) that
the console would act on. So every byte a command prints goes through a `ScreenConsole`:

- `visible` (`cli.screen`, where the rule is written down) shows every character a terminal would act
  on (control characters, bidi controls, line separators) as ``\\uXXXX``;
- a `ScreenConsole` reads no markup, highlights nothing and expands no emoji codes: a message's brackets
  are printed as they are (``pip install 'reqbench[parquet]'``); a coloured label is a `marked` `Text`;
- it applies `visible` to every string it turns into text (before layout, so tables stay aligned) and
  to every text segment it renders (so a `Text` built elsewhere cannot slip through); the control
  segments rich itself emits (cursor moves of a live progress bar) stay intact;
- `ScreenConsole.echo` writes plain text (JSON, a rendered file) through `visible` without rich's
  layout, where commands would otherwise call ``typer.echo``;
- `cli.screen.route_python_messages` sends Python's own warnings and last-resort log lines to stderr
  through `visible`, and `cli.main` prints the traceback of a bug on `err_console`.

Both consoles soft-wrap: a message is never broken at the terminal width by inserted newlines, so a command
it quotes (``reqbench run --resume RUN_DIR``, a path, a placeholder list) stays one copyable line; the
terminal folds long lines itself. Tables are laid out to the width as before (`report.tables`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from reqbench.cli.screen import visible, write


def marked(label: str, style: str, text: object = "") -> Text:
    """``LABEL text`` with only the label styled (``marked("error:", "red", exc)``); `text` is taken
    literally, never as markup."""
    message = visible(str(text))
    return Text.assemble((label, style), " " + message if message else "")


class ScreenConsole(Console):
    """A rich console whose output shows control characters instead of obeying them and reads no markup."""

    def __init__(self, **kwargs: Any) -> None:
        for key, value in (("markup", False), ("highlight", False), ("emoji", False), ("soft_wrap", True)):
            kwargs.setdefault(key, value)
        super().__init__(**kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not segment.text:
                yield segment
            else:
                yield Segment(visible(segment.text), segment.style, segment.control)

    def echo(self, text: object = "", *, end: str = "\n") -> None:
        """Write `text` as it is but for `visible` (no markup, wrapping or tab expansion): JSON, a listing."""
        write(self.file, text, end=end)


def styled(text: object, style: str | Style) -> Text:
    """`text` literally, in one style (``styled(data['target_id'], "bold")``)."""
    return Text(visible(str(text)), style=style)


console = ScreenConsole()
err_console = ScreenConsole(stderr=True)
