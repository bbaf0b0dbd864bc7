"""A study of three configurations on the bundled SpecPath suite, end to end through the real CLI.

`reference` (solves every row), `null` (solves none) and `partial` (a replay store that solves exactly
`helpers.SOLVED`: every history of slugkit, and kvconf's direct history) -- the last one added later with
`reqbench study add`, which must re-run nothing that exists. Tables are compared with values computed by
hand from that subset.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.store import RunStore
from tests.cli.generic_helpers import reqbench
from tests.study.helpers import SOLVED, SPECPATH_CONDITIONS, partial_replay, write_study

FAMILIES = ("durations", "kvconf", "slugkit")


def _attempts(run_dir: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT row_key, attempt_no, started, finished FROM attempts ORDER BY row_key").fetchall()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("study")
    spec = write_study(tmp / "study.yaml", [{"name": "ref", "agent": "reference"},
                                            {"name": "nothing", "agent": "null"}])
    out = tmp / "sp"
    first = reqbench("study", "run", str(spec), "--out", str(out), "--concurrency", "2", "--quiet", timeout=300)
    assert first.returncode == 0, first.stderr
    before = {name: _attempts(out / "runs" / name) for name in ("ref", "nothing")}
    replay = partial_replay(tmp / "partial.jsonl")
    added = reqbench("study", "add", str(out), f"name=partial,agent=replay:{replay}", "name=ref,agent=reference",
                     "--concurrency", "2", "--quiet", timeout=300)
    assert added.returncode == 0, added.stderr
    report = reqbench("study", "report", str(out), "--json", "--pairs", "--csv", str(tmp / "tidy.csv"),
                      "--html", str(tmp / "study.html"))
    assert report.returncode == 0, report.stderr
    return {"out": out, "before": before, "added": added.stdout, "payload": json.loads(report.stdout),
            "tmp": tmp}


def _table(payload: dict[str, Any], title: str) -> dict[str, Any]:
    found = [t for t in payload["tables"] if t["title"] == title]
    assert found, f"no table {title!r} in {[t['title'] for t in payload['tables']]}"
    return found[0]


def test_each_configuration_is_an_ordinary_run_directory(study: dict[str, Any]) -> None:
    for name in ("ref", "nothing", "partial"):
        run_dir = study["out"] / "runs" / name
        with RunStore.open(run_dir, read_only=True) as store:
            counts = store.counts()
        assert counts["planned"] == counts["scored"] == counts["attempts"] == 21
        shown = reqbench("report", str(run_dir), "--json")
        assert shown.returncode == 0, shown.stderr


def test_study_add_reruns_nothing_that_exists(study: dict[str, Any]) -> None:
    assert "added: partial" in study["added"]  # `ref` with the same settings is reused, not added
    for name, attempts in study["before"].items():
        assert _attempts(study["out"] / "runs" / name) == attempts


def test_study_add_refuses_a_taken_name_with_other_settings(study: dict[str, Any]) -> None:
    result = reqbench("study", "add", str(study["out"]), "name=ref,agent=null")
    assert result.returncode == 2
    assert "configuration 'ref'" in result.stderr and "other settings" in result.stderr


def test_headline_per_configuration_matches_the_solved_subset(study: dict[str, Any]) -> None:
    rows = _table(study["payload"], "headline by configuration")["rows"]
    assert rows["ref"]["FCR direct"] == 1.0 and rows["nothing"]["FCR direct"] == 0.0
    # partial: direct solved in slugkit and kvconf, not durations -> task-macro 2/3
    assert rows["partial"]["FCR direct"] == pytest.approx(2 / 3, abs=1e-6)
    # eligible blocks: slugkit (no variant fails) and kvconf (every variant fails) -> (0 + 1) / 2
    assert rows["partial"]["CPV any"] == pytest.approx(0.5)


def test_tidy_export_has_one_row_per_configuration_and_row(study: dict[str, Any]) -> None:
    import csv

    with open(study["tmp"] / "tidy.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 63
    partial = {(r["task_id"], r["condition"]): r["outcome"] for r in rows if r["configuration"] == "partial"}
    assert partial == {(f, c): "success" if (f, c) in SOLVED else "failure"
                       for f in FAMILIES for c in SPECPATH_CONDITIONS}
    assert {r["config_agent"] for r in rows if r["configuration"] == "nothing"} == {"null"}


def test_paired_comparisons_are_per_condition_on_families_and_refuse_a_p_from_three(study: dict[str, Any]) -> None:
    table = _table(study["payload"], "pairwise comparisons of final-contract success by condition (n = families)")
    lines = table["rows"]
    assert len(lines) == 3 * len(SPECPATH_CONDITIONS)  # three pairs of configurations, each condition apart
    # ref vs partial, direct: durations 1 - 0, kvconf 1 - 1, slugkit 1 - 1 -> one family of three differs
    direct = lines["ref - partial / direct"]
    assert direct["difference"]["value"] == pytest.approx(1 / 3) and direct["difference"]["n"] == 3
    assert (direct["families"], direct["first only"], direct["second only"]) == (3, 1, 0)
    # 21 row pairs once gave p = 2 * 0.5**21; three families cannot give any p below 2 / 2**3 = 0.25
    for line in lines.values():
        assert line["families"] == 3 and line["p"] == "n too small" and line["p (BH)"] is None
    assert "fewer than 6 families" in table["estimator"] and "over the 0 tests" in table["estimator"]
    matrix = _table(study["payload"],
                    "paired difference in final-contract success (row minus column, over all conditions)")["rows"]
    # per family, the mean over conditions: durations 1, kvconf 6/7, slugkit 0 -> (1 + 6/7 + 0) / 3
    assert matrix["ref"]["partial"]["value"] == pytest.approx(13 / 21) and matrix["ref"]["partial"]["n"] == 3
    assert matrix["partial"]["ref"]["value"] == pytest.approx(-13 / 21)
    assert matrix["ref"]["ref"] is None
    lo, hi = matrix["ref"]["partial"]["ci"]
    assert lo <= 13 / 21 <= hi


def test_fcr_cpv_and_control_tables_equal_the_hand_computed_subset(study: dict[str, Any]) -> None:
    payload = study["payload"]
    fcr = _table(payload, "FCR by configuration x condition (task-macro; n = scored rows)")
    assert fcr["estimator"].startswith("95% percentile cluster bootstrap over families")
    for condition in SPECPATH_CONDITIONS:
        solved = sum((f, condition) in SOLVED for f in FAMILIES)
        assert fcr["rows"]["partial"][condition]["value"] == pytest.approx(solved / 3, abs=1e-6)
        assert fcr["rows"]["partial"][condition]["n"] == 3
        assert fcr["rows"]["ref"][condition] == {"value": 1.0, "ci": [1.0, 1.0], "n": 3}
    cpv = _table(payload, "CPV given direct success by configuration (task-macro; n = eligible blocks)")["rows"]
    assert cpv["partial"]["any"]["value"] == 0.5 and cpv["partial"]["any"]["n"] == 2
    assert cpv["nothing"]["any"] == {"value": None, "n": 0}  # no eligible block: no estimate
    by_model = _table(payload, "any-CPV by model (n = eligible blocks)")["rows"]
    assert by_model["replay"]["any-CPV"]["value"] == 0.5 and by_model["replay"]["positive"] == 1
    controls = _table(payload, "control delta vs paired direct by configuration (FCR difference; n = pairs)")["rows"]
    # partial: paraphrase-direct solved only in slugkit, direct in slugkit and kvconf -> (0 - 1 + 0) / 3
    assert controls["partial"]["paraphrase-direct"]["value"] == pytest.approx(-1 / 3, abs=1e-6)
    assert controls["partial"]["paraphrase-direct"]["n"] == 3


def test_html_report_holds_every_table_with_its_estimator(study: dict[str, Any]) -> None:
    page = (study["tmp"] / "study.html").read_text(encoding="utf-8")
    for table in study["payload"]["tables"]:
        assert table["title"].replace("'", "&#x27;") in page
    assert "Benjamini-Hochberg" in page and "<script" not in page


def _tags(page: str) -> dict[str, list[str]]:
    """The text of every heading, note paragraph and code span, and each image's src, of an HTML page."""
    from html.parser import HTMLParser

    found: dict[str, list[str]] = {"heading": [], "note": [], "code": [], "img": [], "alt": []}

    class Parser(HTMLParser):
        open: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            attr = dict(attrs)
            if tag == "img":
                found["img"].append(attr.get("src") or "")
                found["alt"].append(attr.get("alt") or "")
            kind = ("heading" if tag in ("h1", "h2", "h3", "h4", "h5", "h6") else
                    "note" if tag == "p" and attr.get("class") == "note" else "code" if tag == "code" else "")
            if kind:
                self.open.append(kind)
                found[kind].append("")

        def handle_endtag(self, tag: str) -> None:
            if tag in ("h1", "h2", "h3", "h4", "h5", "h6", "p", "code") and self.open:
                self.open.pop()

        def handle_data(self, data: str) -> None:
            for kind in self.open:
                found[kind][-1] += data

    Parser().feed(page)
    return found


def test_html_report_notes_are_small_paragraphs_with_inline_code(study: dict[str, Any]) -> None:
    tags = _tags((study["tmp"] / "study.html").read_text(encoding="utf-8"))
    estimators = [t["estimator"] for t in study["payload"]["tables"] if t["estimator"]]
    assert estimators and not any("`" in h or "resamples" in h for h in tags["heading"])
    assert tags["heading"][1:] == ["Plots", *[t["title"] for t in study["payload"]["tables"]]]
    assert len(tags["note"]) == len(estimators)
    assert all("`" not in note for note in tags["note"])
    assert [n for n in tags["note"] if "resamples" in n] and all(e.replace("`", "") in tags["note"] for e in estimators)
    assert "reqbench report runs/<name>" in tags["code"]  # the headline table's note


def test_html_report_draws_headlines_and_paired_differences_as_images(study: dict[str, Any]) -> None:
    import base64

    tags = _tags((study["tmp"] / "study.html").read_text(encoding="utf-8"))
    headline = next(t for t in study["payload"]["tables"] if t["title"] == "headline by configuration")
    metrics = {k for cells in headline["rows"].values() for k, v in cells.items() if v is not None}
    assert metrics and tags["alt"] == ["final-contract success (task-macro) by configuration",
                                       *[f"{k} by configuration" for k in headline["columns"] if k in metrics],
                                       "paired difference in final-contract success by condition"]
    for src in tags["img"]:
        head, data = src.split(",", 1)
        assert head == "data:image/png;base64" and base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n")
