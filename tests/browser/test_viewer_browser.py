"""`reqbench view` in headless Chromium: what a person sees on the runs list, run page, row table, row
pages of every protocol and the compare page; screenshots are saved as test artifacts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.browser import browser, served


@pytest.fixture(scope="module")
def site(runs: Path) -> Iterator[tuple[str, Any, Any]]:
    with served(runs) as (base, viewer, entry), browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 900})
        page.goto(entry)  # the printed URL: sets this launch's cookie, then every page opens
        yield base, viewer, page


def test_runs_list_and_run_page_with_plots(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    page.goto(base + "/")
    assert page.locator("table.runs tr").count() == 1 + len(viewer.runs)
    page.goto(f"{base}{viewer.runs['specpath'].base}/")
    assert "agent null" in page.locator("h1").inner_text()
    assert "bubblewrap" in page.locator("dl.prov").inner_text()
    plots = page.locator("img.plot")
    assert plots.count() >= 1
    assert all(plots.nth(i).evaluate("img => img.naturalWidth > 0") for i in range(plots.count()))
    assert page.locator("figcaption").count() == 0  # the title is drawn in the plot, never repeated below
    assert page.locator("h2", has_text="Probe signature raster").count() == 1
    page.screenshot(path=str(shots / "run-specpath.png"), full_page=True)


def test_probe_raster_links_each_cell_to_its_row(site: tuple[str, Any, Any]) -> None:
    base, viewer, page = site
    page.goto(f"{base}{viewer.runs['specpath-probes'].base}/")
    cells = page.locator("table.raster td a")
    assert cells.count() == 4  # two rows x two probes
    assert "override" in (cells.nth(3).get_attribute("href") or "")
    cells.nth(3).click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "fam|override|reference|0"


def _column(page: Any, index: int) -> list[str]:
    return [r.locator("td").nth(index).inner_text() for r in page.locator("table.runs tr").all()[1:]]


def test_runs_list_compares_runs_and_sorts_and_filters(site: tuple[str, Any, Any], shots: Path) -> None:
    """Per run: protocol, agent, model, headline metric, rows scored/planned, tokens, cost, duration,
    created; a click on a heading sorts, the form filters."""
    base, viewer, page = site
    page.goto(base + "/")
    heads = page.locator("table.runs th").all_inner_texts()
    assert [h.rstrip(" ▲▼") for h in heads] == ["run", "protocol", "agent", "model", "headline metric [95% interval]",
                                                 "rows scored / planned", "tokens", "cost $", "duration", "created"]
    line = page.locator("table.runs tr", has_text="takeover-a").locator("td").all_inner_texts()
    assert line[1:3] == ["takeover", "null"] and line[5] == "2 / 2" and line[6] == "30" and line[7] == "0.0200"
    specpath = page.locator("table.runs tr", has_text="specpath").first.locator("td").all_inner_texts()
    assert specpath[4].startswith("FCR")
    page.locator("table.runs th a", has_text="run").click()
    page.wait_for_load_state()
    names = _column(page, 0)
    assert names == sorted(names)
    page.locator("table.runs th a", has_text="run").click()  # again: descending
    page.wait_for_load_state()
    assert _column(page, 0) == sorted(names, reverse=True)
    page.select_option("select[name=protocol]", "takeover")
    page.locator("form.filter button").click()
    page.wait_for_load_state()
    assert set(_column(page, 1)) == {"takeover"} and len(_column(page, 1)) == 3
    page.fill("input[name=q]", "reference")
    page.locator("form.filter button").click()
    page.wait_for_load_state()
    assert sorted(_column(page, 0)) == ["takeover-b", "takeover-timeline"]
    page.goto(base + "/")
    page.screenshot(path=str(shots / "runs.png"), full_page=True)


def test_unknown_runs_and_pages_are_a_404_with_navigation(site: tuple[str, Any, Any]) -> None:
    base, viewer, page = site
    for path in ("/run/nope/", "/compare?a=nope&b=takeover-a", "/nowhere", "/run/takeover-a/row?key=nope"):
        response = page.goto(base + path)
        assert response is not None and response.status == 404, path
        assert page.locator("h1").inner_text() == "not found"
        assert page.locator("nav a", has_text="all runs").count() == 1
        assert page.locator("ul.runs a").count() == len(viewer.runs)


def test_row_table_shows_outcomes_sorts_and_filters(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    rows_url = f"{base}{viewer.runs['takeover-a'].base}/rows"
    page.goto(rows_url)
    outcomes = page.locator("table.rows span.outcome").all_inner_texts()
    assert sorted(outcomes) == ["failure", "success"]  # one vocabulary; the protocol's label beside it
    assert "agent_failure" in page.locator("table.rows").inner_text()
    page.locator("table.rows th a", has_text="score").click()
    page.wait_for_load_state()
    assert page.locator("table.rows span.outcome").first.inner_text() == "failure"
    page.select_option("select[name=outcome]", "success")
    page.locator("form.filter button").click()
    page.wait_for_load_state()
    assert page.locator("table.rows span.outcome").all_inner_texts() == ["success"]
    assert "of 1" in page.locator("p.pager").first.inner_text()
    page.goto(f"{base}{viewer.runs['specpath'].base}/rows?size=5&page=2")
    assert page.locator("table.rows tr").count() == 6
    page.screenshot(path=str(shots / "rows-specpath.png"))


def _open_row(page: Any, base: str, run: Any, text: str = "") -> None:
    page.goto(f"{base}{run.base}/rows?q={text}")
    page.goto(base + page.locator("table.rows td a").first.get_attribute("href"))


def test_takeover_row_renders_diff_checks_and_trajectory(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    _open_row(page, base, viewer.runs["takeover-a"], "T2")
    diff = page.locator("div.diff").first
    assert "+NEW = 2" in diff.inner_text() and "-OLD = 1" in diff.inner_text()
    assert diff.locator("span").count() > 0  # highlighted tokens
    assert page.locator("details summary", has_text="target").count() >= 1
    assert page.locator("table.gates").inner_text().count("FAIL") == 1
    step = page.locator("div.steps details.step").first  # one fold per step, its command in the summary
    assert "pytest -q" in step.locator("summary").inner_text() and "exit 1" in step.locator("summary").inner_text()
    step.locator("summary").click()
    output = step.locator(".field pre.code").first
    assert output.evaluate("e => getComputedStyle(e).textAlign") == "left"
    assert "mono" in output.evaluate("e => getComputedStyle(e).fontFamily")
    page.screenshot(path=str(shots / "row-takeover.png"), full_page=True)


def test_viewer_escapes_agent_html(site: tuple[str, Any, Any]) -> None:
    """A diff, log or reply containing <script> renders as text: nothing runs, no element is injected."""
    base, viewer, page = site
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for name, text in (("takeover-a", "T2"), ("journey", ""), ("pace", "")):
        _open_row(page, base, viewer.runs[name], text)
        assert page.title() != "pwned"
        assert page.locator("body script").count() == 0
        assert page.locator("img[src=x]").count() == 0
        assert "<script>document.title='pwned'</script>" in page.locator("body").inner_text()
    assert dialogs == []


def test_journey_row_is_a_chat(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    _open_row(page, base, viewer.runs["journey"])
    turns = page.locator(".chat .turn")
    assert turns.count() == 5  # two user messages, two replies, the user's closing message
    assert "Please add due dates." in turns.nth(0).inner_text()
    reply = turns.nth(1).inner_text()
    assert "user confidence 80" in reply and "tests 1/2 passing" in reply and "T1:done" in reply
    page.screenshot(path=str(shots / "row-journey.png"), full_page=True)


def test_pace_row_shows_criteria_and_names_a_heuristic_judge(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    _open_row(page, base, viewer.runs["pace"])
    banner = page.locator("p.banner.judge").inner_text()
    assert "offline" in banner and "heuristic" in banner and "not a semantic judgment" in banner
    first = page.locator("div.points details.point").first
    assert "CP01" in first.locator("summary").inner_text() and "weight 3" in first.locator("summary").inner_text()
    assert first.get_attribute("open") is not None  # the first point is unfolded, Covered or not
    criteria = first.locator("table.criteria").inner_text()
    assert "app.py defines NEW <script>" in criteria and "covered" in criteria and "hard" in criteria
    assert "app.py:2" in criteria
    second = page.locator("div.points details.point").nth(1)
    assert second.get_attribute("open") is not None  # a point not covered is open
    assert "Not Covered" in second.inner_text() and "NEW is documented." in second.inner_text()
    page.screenshot(path=str(shots / "row-pace.png"), full_page=True)


def test_specpath_row_shows_history_and_probe_raster(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    _open_row(page, base, viewer.runs["specpath"])
    assert "probe signature" in page.locator("body").inner_text()
    assert page.locator("h3", has_text="what the agent received").count() == 1
    history = page.locator("div.inputs").first
    assert "Conversation so far" in history.inner_text()
    assert history.evaluate("e => getComputedStyle(e).textAlign") == "left"
    page.screenshot(path=str(shots / "row-specpath.png"), full_page=True)


def test_compare_page_lists_flips(site: tuple[str, Any, Any], shots: Path) -> None:
    base, viewer, page = site
    page.goto(f"{base}/compare?a=takeover-a&b=takeover-b")
    heading = page.locator("h2", has_text="flipped").inner_text()
    assert "1 of 2 paired" in heading
    flips = page.locator("table.flips").inner_text()
    assert "T2 | C1 | 0" in flips and "better" in flips
    page.screenshot(path=str(shots / "compare.png"), full_page=True)


def test_takeover_row_shows_requirement_timeline_beside_phase_a(site: tuple[str, Any, Any], shots: Path) -> None:
    """DOCKSIDE_T001 of the bundled suite: REQ_VAT is introduced at message 5 (20 %) and modified at the
    target, message 24 (21 %); its execution claim at message 26 comes after the target and is not shown."""
    base, viewer, page = site
    _open_row(page, base, viewer.runs["takeover-timeline"])
    timeline = page.locator("div.takeover .timeline-col")
    assert "21% VAT instead of 20%" in timeline.locator("p.request").inner_text()
    vat = timeline.locator("table.timeline").first
    cells = [[c.strip() for c in r.locator("td").all_inner_texts()] for r in vat.locator("tr").all()[1:]]
    assert [c[0] for c in cells] == ["5", "24"]
    assert cells[0][2].startswith("INTRODUCE") and cells[1][2].startswith("MODIFY")
    assert "IMPLEMENTATION_CLAIM" not in vat.inner_text()
    assert vat.locator("tr.at-target .target").inner_text() == "target"
    state = timeline.locator("table.target-state tr", has_text="REQ_VAT").locator("td").all_inner_texts()
    assert '"vat_rate": 0.2}' in state[1] and '"vat_rate": 0.21}' in state[2]
    phase_a = page.locator("div.takeover .phase-a")
    assert phase_a.locator("table.matches.rq1").inner_text().split() == [
        "response", "ref", "gold", "requirement", "state", "score", "req_vat", "REQ_VAT", "—"]
    assert "0.5" in phase_a.locator("table.matches.rq3").inner_text()
    assert "VAT <script>" in phase_a.locator("pre").inner_text()  # the agent's text, inert
    left, right = timeline.bounding_box(), phase_a.bounding_box()
    assert left["x"] + left["width"] <= right["x"] and right["y"] < left["y"] + left["height"]  # side by side
    delivery = page.locator("div.delivery")
    diff, gates = delivery.locator("div.diff").bounding_box(), delivery.locator("table.gates").bounding_box()
    assert diff["x"] + diff["width"] <= gates["x"]
    assert delivery.locator("table.gates").inner_text().count("FAIL") == 1
    assert page.locator("div.diff").count() == 1  # the diff is shown once, beside its gates
    page.screenshot(path=str(shots / "row-takeover-timeline.png"), full_page=True)
