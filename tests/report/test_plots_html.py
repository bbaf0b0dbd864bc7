"""Plots are real PNGs with error bars when intervals are given; the HTML report is self-contained."""

from __future__ import annotations

import base64
import re

from reqbench.report.html import render_report
from reqbench.report.plots import bar_chart, summary_plots
from reqbench.report.tables import TableData

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_bar_chart_is_a_png_and_intervals_change_the_picture() -> None:
    plain = bar_chart(["C1", "C2"], [0.5, 0.25], title="rate")
    with_ci = bar_chart(["C1", "C2"], [0.5, 0.25], title="rate", ci=[(0.3, 0.7), None])
    assert plain.startswith(PNG_MAGIC) and with_ci.startswith(PNG_MAGIC)
    assert plain != with_ci


def test_missing_values_do_not_break_a_chart() -> None:
    assert bar_chart(["a", "b"], [None, 1.0], ci=[None, (0.5, 1.5)]).startswith(PNG_MAGIC)


def test_summary_plots_follow_the_plots_key_and_skip_unknown_tables() -> None:
    summary = {"by condition": {"C1": {"rate": {"value": 0.5, "ci": [0.2, 0.8]}}, "C2": {"rate": 0.1}},
               "plots": [{"table": "by condition", "column": "rate", "title": "rate by condition"},
                         {"table": "missing", "column": "rate"}]}
    plots = summary_plots(summary)
    assert [title for title, _ in plots] == ["rate by condition"]
    assert plots[0][1].startswith(PNG_MAGIC)


def test_html_report_embeds_plots_and_escapes_text() -> None:
    png = bar_chart(["a"], [1.0])
    html = render_report("report <x>", [("toy", [TableData("t<1>", ["", "v"], [["<script>", "1"]])])],
                         [("p", png)])
    assert "<script>" not in html and "&lt;script&gt;" in html
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert [base64.b64decode(e) for e in embedded] == [png]
    assert "http://" not in html and "https://" not in html
