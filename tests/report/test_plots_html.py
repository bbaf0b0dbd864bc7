"""Plots are real PNGs with error bars when intervals are given; the HTML report is self-contained."""

from __future__ import annotations

import base64
import re

from reqbench.core.summary import Plot
from reqbench.report.headline_plots import headline_plots
from reqbench.report.html import render_report
from reqbench.report.plots import bar_chart
from reqbench.report.tables import TableData

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_bar_chart_is_a_png_and_intervals_change_the_picture() -> None:
    plain = bar_chart(["C1", "C2"], [0.5, 0.25], title="rate")
    with_ci = bar_chart(["C1", "C2"], [0.5, 0.25], title="rate", ci=[(0.3, 0.7), None])
    assert plain.startswith(PNG_MAGIC) and with_ci.startswith(PNG_MAGIC)
    assert plain != with_ci


def test_missing_values_do_not_break_a_chart() -> None:
    assert bar_chart(["a", "b"], [None, 1.0], ci=[None, (0.5, 1.5)]).startswith(PNG_MAGIC)


def test_summary_plots_are_drawn_in_order_with_their_titles() -> None:
    plots = [Plot("bar", "rate by condition", ["C1", "C2"], {"rate": [0.5, 0.1]}, [(0.2, 0.8), None]),
             Plot("grouped", "two rates", ["a"], {"x": [0.5], "y": [None]}),
             Plot("distribution", "scores", ["s1", "s2"], points=[[1.0, 2.0], []], drawn_title="scores (line: mean)")]
    drawn = headline_plots(plots)
    assert [title for title, _ in drawn] == ["rate by condition", "two rates", "scores"]
    assert all(png.startswith(PNG_MAGIC) for _, png in drawn)


def test_html_report_embeds_plots_and_escapes_text() -> None:
    png = bar_chart(["a"], [1.0])
    html = render_report("report <x>", [("toy", [TableData("t<1>", ["", "v"], [["<script>", "1"]])])],
                         [("p", png)])
    assert "<script>" not in html and "&lt;script&gt;" in html
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert [base64.b64decode(e) for e in embedded] == [png]
    assert "http://" not in html and "https://" not in html
