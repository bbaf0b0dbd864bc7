"""`reqbench takeover ...`: ReqMemBench commands. Each command family lives in its own module
(`takeover_build`, `takeover_score`), which registers onto this group."""

from __future__ import annotations

import typer

from reqbench.cli import takeover_build, takeover_score

app = typer.Typer(help="ReqMemBench takeover: replay, build, score. Intervals: the report's complete-delivery "
                  "rates carry 95% Wilson score intervals from the delivery counts.", no_args_is_help=True)

for _module in (takeover_build, takeover_score):
    _module.register(app)
