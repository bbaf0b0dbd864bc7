"""Cost and effort are compared like scores: `study report` (terminal, ``--json``, ``--html``) and the viewer's
leaderboard show, per configuration, the model calls, tokens and USD the run store recorded, the agent and
row time, and the price source actually in force (a price file named with its path, not "the built-in
table"); the leaderboard sorts by cost.

The study: SpecPath's slugkit family on its direct history, `llm` (the built-in agent against a loopback
OpenAI-compatible provider, priced by a ``REQBENCH_PRICES`` file) and `ref` (reference: no model calls).
Real CLI subprocesses, real HTTP on 127.0.0.1, real SQLite.
"""

from __future__ import annotations

import json
import threading
from html import unescape
from pathlib import Path

import pytest

from reqbench.report.viewer import make_server
from reqbench.study.view import study_view
from tests.cli.generic_helpers import reqbench
from tests.support.scripted_openai import ScriptedOpenAI, reply
from tests.support.viewer_client import logged_in

PROMPT, COMPLETION = 300, 40
IN_PRICE, OUT_PRICE = 1000.0, 2000.0  # USD per 1M: large, so the cost is visible at a few calls


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("coststudy")
    prices = tmp / "prices.yaml"
    prices.write_text(f"openai/m: {{input_per_1m: {IN_PRICE}, output_per_1m: {OUT_PRICE}}}\n")
    with ScriptedOpenAI(lambda body, i: reply("```reply\ndone\n```", prompt_tokens=PROMPT,
                                              completion_tokens=COMPLETION)) as provider:
        spec = tmp / "study.yaml"
        spec.write_text("suite: demo:specpath/slugkit\nconditions: [direct]\nconfigurations:\n"
                        f"  - {{name: llm, agent: llm, model: openai/m, agent_opts: {{base_url: '{provider.base_url}'}}}}\n"
                        "  - {name: ref, agent: reference}\n", encoding="utf-8")
        ran = reqbench("study", "run", str(spec), "--out", str(tmp / "st"), "--quiet", timeout=300,
                       REQBENCH_PRICES=str(prices), REQBENCH_API_KEY="k")
        assert ran.returncode == 0, ran.stdout + ran.stderr
        sent = len(provider.chat_requests)
    assert sent >= 1
    return tmp / "st", prices, sent


def test_report_json_has_each_configurations_cost_tokens_calls_time_and_price_file(study) -> None:  # type: ignore[no-untyped-def]
    path, prices, sent = study
    proc = reqbench("study", "report", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    configs = json.loads(proc.stdout)["configurations"]
    llm, ref = configs["llm"]["cost"], configs["ref"]["cost"]
    assert llm["model_calls"] == sent and llm["prompt_tokens"] == sent * PROMPT
    assert llm["completion_tokens"] == sent * COMPLETION
    assert llm["cost_usd"] == pytest.approx(sent * (PROMPT * IN_PRICE + COMPLETION * OUT_PRICE) / 1e6)
    assert llm["row_seconds"] > 0 and llm["agent_time_rows"] == 1 and llm["agent_seconds"] is not None
    assert f"price file {prices}" in llm["prices"] and "REQBENCH_PRICES" in llm["prices"]
    assert ref["model_calls"] == 0 and ref["cost_usd"] is None
    table = next(t for t in json.loads(proc.stdout)["tables"] if t["title"] == "cost and effort by configuration")
    assert table["estimator"]


def test_terminal_and_html_reports_show_the_cost_table(study, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path, prices, _ = study
    html = tmp_path / "study.html"
    proc = reqbench("study", "report", str(path), "--html", str(html), COLUMNS="300")
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, unescape(html.read_text(encoding="utf-8"))):
        assert "cost and effort by configuration" in text and "cost (USD)" in text and "agent time (s)" in text
        assert "model calls" in text and str(prices) in " ".join(text.split())


def test_viewer_leaderboard_shows_cost_and_sorts_by_it(study) -> None:  # type: ignore[no-untyped-def]
    path, _, _ = study
    server = make_server(path, port=0, study=study_view(path))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = logged_in(server.url)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        for direction, first in (("desc", "llm"), ("asc", "ref")):
            status, _, body = client.get(base + f"/?sort=model+calls&dir={direction}")
            assert status == 200
            text = body.decode("utf-8") if isinstance(body, bytes) else body
            board = unescape(text.split('class="leaderboard"', 1)[1].split("</table>", 1)[0])
            assert "model calls" in board and "row time (s)" in board and "cost (USD)" in board
            assert board.index(f">{first}</a>") < board.index(f">{'ref' if first == 'llm' else 'llm'}</a>")
    finally:
        server.shutdown()
        server.server_close()
        server.viewer.close()
