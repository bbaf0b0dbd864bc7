"""`reqbench view STUDY_DIR`: the study page (leaderboard with intervals as text and bars, configuration x
condition heatmap, paired differences) and two configurations row by row, over real HTTP on 127.0.0.1.

The study: the bundled SpecPath suite on its direct and override histories with `ref` (reference: solves
every row), `nothing` (null: solves none) and `partial` (a replay store solving every slugkit history and
kvconf's direct one). Final-contract success by condition, by hand: ref 1 and 1; nothing 0 and 0; partial
direct 2/3 (slugkit, kvconf of three families), override 1/3 (slugkit).
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from reqbench.report.viewer import make_server
from reqbench.study.view import study_view
from tests.cli.generic_helpers import REPO, cli_cmd, cli_env, reqbench
from tests.study.helpers import partial_replay, write_study
from tests.support.viewer_client import logged_in


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("viewstudy")
    replay = partial_replay(tmp / "partial.jsonl")
    spec = write_study(tmp / "study.yaml", [{"name": "ref", "agent": "reference"},
                                            {"name": "nothing", "agent": "null"},
                                            {"name": "partial", "agent": f"replay:{replay}"}],
                       conditions=["direct", "override"])
    ran = reqbench("study", "run", str(spec), "--out", str(tmp / "sp"), "--concurrency", "2", "--quiet",
                   timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return tmp / "sp"


@pytest.fixture(scope="module")
def site(study_dir: Path) -> Iterator[tuple[str, Any]]:
    server = make_server(study_dir, port=0, study=study_view(study_dir))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = logged_in(server.url)
        yield f"http://127.0.0.1:{server.server_address[1]}", client
    finally:
        server.shutdown()
        server.server_close()
        server.viewer.close()


def _get(site: tuple[str, Any], path: str) -> str:
    base, client = site
    status, ctype, body = client.get(base + path)
    assert status == 200 and ctype.startswith("text/html"), (status, body[:300])
    return str(body.decode("utf-8"))


def _leaderboard_order(html: str) -> list[str]:
    board = html.split('<table class="leaderboard">', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr><td><a href="/run/runs%2F(\w+)/">', board)


def test_leaderboard_sorts_on_the_server_and_draws_intervals(site: tuple[str, Any]) -> None:
    html = _get(site, "/")
    assert _leaderboard_order(html) == ["ref", "partial", "nothing"]  # first headline metric, highest first
    assert html.count('<span class="bar"') >= 3 and '<span class="ci"' in html
    # partial, task-macro: slugkit 1, kvconf 1/2, durations 0 -> 0.5; a resample of three clusters is all
    # durations (or all slugkit) with probability 1/27 > 2.5%, so the percentile interval is [0, 1]
    assert re.search(r'<a href="/run/runs%2Fpartial/">partial</a></td><td>0\.5 \[0, 1\]<span class="bar"', html)
    assert "partial" in _get(site, "/run/runs%2Fpartial/")  # the leaderboard's link opens the run's page
    assert "<script" not in html
    column = unescape(re.search(r'<th><a href="([^"]+)">[^<]+ ▼</a></th>', html).group(1))  # type: ignore[union-attr]
    assert "dir=asc" in column
    assert _leaderboard_order(_get(site, column)) == ["nothing", "partial", "ref"]


def test_heatmap_colours_each_configuration_x_condition_mean(site: tuple[str, Any]) -> None:
    html = _get(site, "/")
    heat = html.split('<table class="heatmap">', 1)[1].split("</table>", 1)[0]
    rows = {m[0]: m[1] for m in re.findall(r"<tr><td>(\w+)</td>(.*?)</tr>", heat)}
    cells = {name: re.findall(r'style="background:hsl\((\d+),65%,80%\)" title="n = 3">([^<]+)</td>', cells)
             for name, cells in rows.items()}
    # one scale from 0 (red, hue 0) to 1 (green, hue 120); partial: 2/3 -> hue 80, 1/3 -> hue 40
    assert cells == {"ref": [("120", "1"), ("120", "1")], "nothing": [("0", "0"), ("0", "0")],
                     "partial": [("80", "0.6667"), ("40", "0.3333")]}
    assert "final-contract success by configuration x condition" in heat


def test_study_page_shows_the_pairwise_matrix_and_every_report_table(site: tuple[str, Any]) -> None:
    html = _get(site, "/")
    assert "paired difference in final-contract success (row minus column, over all conditions)" in html
    assert "<summary>configurations</summary>" in html and "FCR" in html
    assert '<a href="/runs">all runs</a>' in html


def test_two_configurations_row_by_row_link_both_row_pages(site: tuple[str, Any]) -> None:
    html = _get(site, "/study/rows?a=ref&b=partial")
    assert "rows that flipped: 3 of 6" in html  # durations both, kvconf override
    flips = html.split('<table class="flips">', 1)[1]
    assert flips.count("A higher") == 3 and "B higher" not in flips
    links = [unescape(x) for x in re.findall(r'<a href="(/run/[^"]+/row\?key=[^"]+)">', flips)]
    assert len(links) == 6 and any("durations%7Coverride%7Creplay" in x for x in links)
    for link in links[:2]:
        assert "<h1>durations|direct|" in _get(site, link)
    assert "compare the two runs" in html and "/compare?a=runs%2Fref&amp;b=runs%2Fpartial" in html
    every = _get(site, "/study/rows?a=ref&b=partial&show=all")
    assert every.count("<tr>") == 1 + 6 and every.count(">same<") == 3


def test_runs_list_stays_reachable_beside_the_study_page(site: tuple[str, Any]) -> None:
    html = _get(site, "/runs")
    assert html.count('<a href="/run/runs%2F') == 3
    assert 'action="/runs"' in html


def test_view_command_opens_a_study_on_its_study_page(study_dir: Path) -> None:
    proc = subprocess.Popen(cli_cmd("view", str(study_dir), "--port", "0"), env=cli_env(), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        assert match, line + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        client = logged_in(match.group(0))
        status, _, body = client.get(match.group(0))
        assert status == 200 and b"<h2>Leaderboard</h2>" in body
        board = body.decode().split('<table class="leaderboard">', 1)[1].split("</table>", 1)[0]
        links = re.findall(r'<a href="(/run/[^"]+)">(\w+)</a>', board)
        assert sorted(name for _, name in links) == ["nothing", "partial", "ref"]
        base = match.group(0).split("/?", 1)[0]
        for link, name in links:  # every configuration's link opens that configuration's run page
            status, _, page = client.get(base + unescape(link))
            assert status == 200 and f'<a href="/run/runs%2F{name}/rows">rows</a>' in page.decode(), (link, status)
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_study_page_draws_the_study_plots_and_notes_with_inline_code(site: tuple[str, Any]) -> None:
    html = _get(site, "/")
    alts = re.findall(r'<img class="plot" alt="([^"]*)" src="data:image/png;base64,[A-Za-z0-9+/=]+">', html)
    assert "paired difference in final-contract success by condition" in alts
    assert any(a.endswith(" by configuration") for a in alts)
    assert html.index("<h2>Plots</h2>") < html.index("<h2>Pairwise differences</h2>")
    notes = re.findall(r'<p class="meta">(.*?)</p>', html)
    assert notes and not any("`" in n for n in notes)
    assert any("<code>reqbench report runs/&lt;name&gt;</code>" in n for n in notes)
