"""`reqbench view STUDY_DIR` in headless Chromium: the leaderboard re-sorts by a click, the heatmap is
coloured, and two configurations compare row by row with links to both row pages; no script runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reqbench.study.view import study_view
from tests.browser.browser import browser, served
from tests.cli.generic_helpers import reqbench
from tests.study.helpers import partial_replay, write_study


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    tmp = tmp_path_factory.mktemp("studybrowser")
    replay = partial_replay(tmp / "partial.jsonl")
    spec = write_study(tmp / "study.yaml", [{"name": "ref", "agent": "reference"},
                                            {"name": "nothing", "agent": "null"},
                                            {"name": "partial", "agent": f"replay:{replay}"}],
                       conditions=["direct", "override"])
    ran = reqbench("study", "run", str(spec), "--out", str(tmp / "sp"), "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    with served(tmp / "sp", study_view(tmp / "sp")) as (base, _, entry), browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 900})
        page.goto(entry)
        yield base, page


def _board(page: Any) -> list[str]:
    return [r.locator("td").first.inner_text() for r in page.locator("table.leaderboard tr").all()[1:]]


def test_leaderboard_sorts_by_a_click_and_the_heatmap_is_coloured(site: tuple[str, Any], shots: Path) -> None:
    base, page = site
    page.goto(base + "/")
    assert page.locator("script").count() == 0
    assert _board(page) == ["ref", "partial", "nothing"]
    page.locator("table.leaderboard th a", has_text="▼").click()
    page.wait_for_load_state()
    assert _board(page) == ["nothing", "partial", "ref"]
    colours = page.locator("table.heatmap td.cell").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).backgroundColor)")
    assert len(colours) == 6 and len(set(colours)) == 4  # 1, 0, 2/3 and 1/3: four colours on one scale
    widths = page.locator("img.plot").evaluate_all("imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert len(widths) >= 2 and all(w > 300 for w in widths)  # the study's plots are decoded images
    assert page.locator("p.meta code").count() >= 1 and page.locator("h2 code, h3 code").count() == 0
    page.screenshot(path=str(shots / "study-page.png"), full_page=True)


def test_two_configurations_row_by_row_lead_to_both_row_pages(site: tuple[str, Any], shots: Path) -> None:
    base, page = site
    page.goto(base + "/")
    page.locator("form[action='/study/rows'] select[name=b]").select_option("partial")
    page.locator("form[action='/study/rows'] button").click()
    page.wait_for_load_state()
    assert "rows that flipped: 3 of 6" in page.locator("h2").first.inner_text()
    page.screenshot(path=str(shots / "study-rows.png"), full_page=True)
    page.locator("table.flips tr").nth(1).locator("td").nth(2).locator("a").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().startswith("durations|direct|replay:")
