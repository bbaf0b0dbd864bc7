"""The demo's closing table: each protocol names its headline metrics from its own summary."""

from rich.console import Console

from reqbench.cli.generic import headline_table
from reqbench.protocols.pace.summary import summary as pace_summary
from reqbench.protocols.takeover.run.summary import headline as takeover_headline


def test_takeover_headline_is_delivery_per_condition_and_rq3_accuracy():
    summary = {"delivery": {"C1": {"complete_delivery": 0.4}, "oracle-post": {"complete_delivery": 1.0}},
               "rq3_decision": {"diag-C1": {"decision_accuracy": 0.5}}}
    assert takeover_headline(summary) == {"C1 delivery": 0.4, "oracle-post delivery": 1.0,
                                          "diag-C1 RQ3 decision acc.": 0.5}


def test_headline_table_lists_one_row_per_metric():
    pace = dict(pace_summary({"systems": {"reference/prd": {"mean": 100.0}, "null/prd": {"mean": 0.0}}}).headline)
    console = Console(width=120, record=True)
    console.print(headline_table([("pace", "reference", pace)]))
    text = console.export_text()
    assert "reference/prd score" in text and "100" in text and "null/prd score" in text
