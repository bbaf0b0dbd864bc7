"""Plots are real PNGs with error bars when intervals are given, readable whatever their title and numbers
(wrapped titles, visible zero bars, a heuristic judge named); the HTML report is self-contained."""

from __future__ import annotations

import base64
import io
import re
from typing import Any

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from reqbench.core.summary import Plot
from reqbench.report.headline_plots import drawn_title, headline_plots
from reqbench.report.html import render_report
from reqbench.report.plots import COLOUR, bar_chart
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


def _pixels(png: bytes) -> Any:
    from matplotlib.image import imread

    return imread(io.BytesIO(png), format="png")[:, :, :3]


@pytest.mark.parametrize("ylabel", ["", "final-contract success"])
def test_a_long_title_wraps_inside_the_figure_never_clipped(ylabel: str) -> None:
    title = "complete-delivery rate by condition (95% Wilson interval) over every configuration of the study"
    image = _pixels(bar_chart(["C1", "C2"], [0.5, 0.25], title=title, ylabel=ylabel))
    band = image[: image.shape[0] // 6]  # the title's band
    assert band.min() < 0.5  # the title is drawn
    edges = np.concatenate([band[:, :4], band[:, -4:]], axis=1)
    assert edges.min() > 0.95  # and leaves both edges blank: nothing runs off the figure


def test_an_all_zero_chart_shows_its_zero_bars() -> None:
    image = _pixels(bar_chart(["C1", "C2", "C3"], [0.0, 0.0, 0.0], title="rate"))
    bar = np.array(to_rgb(COLOUR))
    assert (np.abs(image - bar).max(axis=2) < 0.05).sum() > 50  # the zero bars are drawn in the bar colour
    assert image.tobytes() != _pixels(bar_chart(["C1", "C2", "C3"], [None, None, None], title="rate")).tobytes()


def test_a_heuristic_judge_is_named_in_the_drawn_title_only() -> None:
    judged = Plot("bar", "score by case", ["a"], {"score": [1.0]}, judge="token-overlap/v1")
    assert "heuristic judge: token-overlap/v1" in drawn_title(judged)
    assert drawn_title(Plot("bar", "score by case", ["a"], {"score": [1.0]}, judge="llm:m")) == "score by case"
    assert drawn_title(Plot("bar", "score by case", ["a"], {"score": [1.0]})) == "score by case"
    assert headline_plots([judged])[0][0] == "score by case"  # the file name stays the plain title
    assert Plot.from_json(judged.to_json()) == judged


def test_html_plots_carry_no_caption_repeating_their_title() -> None:
    html = render_report("r", [], [("rate by condition", bar_chart(["a"], [1.0], title="rate by condition"))])
    assert "<figcaption" not in html and html.count("rate by condition") == 1  # the image's alt text


def test_forest_plot_draws_each_difference_with_its_interval_around_zero() -> None:
    from reqbench.report.plots import forest_chart

    plain = forest_chart(["a - b / direct", "a - c / direct", "b - c / direct"], [0.5, -0.25, None])
    with_ci = forest_chart(["a - b / direct", "a - c / direct", "b - c / direct"], [0.5, -0.25, None],
                           ci=[(0.1, 0.9), (-0.6, 0.1), None])
    assert plain.startswith(PNG_MAGIC) and with_ci.startswith(PNG_MAGIC) and plain != with_ci
    drawn = headline_plots([Plot("forest", "differences", ["x - y / c"], {"d": [0.0]}, [(-0.5, 0.5)])])
    assert drawn[0][0] == "differences" and drawn[0][1].startswith(PNG_MAGIC)


def test_a_note_becomes_a_paragraph_with_inline_code_and_stays_escaped() -> None:
    from reqbench.report.html import note_html

    hostile = 'see `reqbench report runs/<name>` and `<img src=x onerror="alert(1)">` then </p><script>x()</script>'
    html = note_html(hostile)
    assert html.startswith('<p class="note">') and html.endswith("</p>") and html.count("</p>") == 1
    assert "<code>reqbench report runs/&lt;name&gt;</code>" in html
    assert "<code>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</code>" in html
    assert "<script" not in html and "<img" not in html and "`" not in html
    assert note_html("a `lone backtick") == '<p class="note">a `lone backtick</p>' and note_html("") == ""
