"""Red team: what a takeover agent writes (its Phase-A response, the refs the scorer matched, its patch,
the gates' logs of its code) reaches the row page's timeline, Phase-A and delivery panels only as text,
and the timeline is read from the run's suite, never from anything in the attempt."""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.viewer.server import Viewer

SUITE = Path(__file__).resolve().parents[2] / "src" / "reqbench" / "examples" / "takeover"
EVIL = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def test_takeover_panels_escape_agent_text_and_read_the_timeline_from_the_suite(tmp_path: Path) -> None:
    response = {"decision": "ACT", "requirements": [{"requirement_ref": EVIL, "requirement_summary": EVIL}],
                # a forged "timeline" in the response changes nothing the page shows as gold
                "timeline": [{"event_type": "REMOVE", "requirement_id": "REQ_VAT"}]}
    score = {"rq1": {"status": "scored", "matches": [[EVIL, "REQ_VAT"]]},
             "rq3": {"status": "scored", "requirements": [{"prediction_ref": EVIL, "gold_ref": "REQ_VAT",
                                                           "state_score": 1.0}]}}
    result = {"score": score, "phase_a": {"decision": "ACT", "valid": True, "problems": [EVIL]},
              "checks": {"target": {"status": "FAIL", "stdout_tail": EVIL}},
              "delivery": {"decision": "agent_failure", "score": 0, "reason": EVIL, "statuses": {"target": "FAIL"}}}
    patch = f"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+{EVIL}\n"
    meta = RunMeta(suite_path=str(SUITE), protocol="takeover", options={"agent": "null"}, created=utc_now(),
                   reqbench_version="test")
    row = Row("DOCKSIDE_T001", "two-phase-C1", "null", 0)
    with RunStore.create(tmp_path / "run", meta) as store:
        store.add_plan([row])
        store.record_attempt(row, RowOutcome(status="scored", result=result, artifacts={
            "submission.patch": patch.encode(), "phase_a_response.json": json.dumps(response).encode()}))
    viewer = Viewer(tmp_path / "run")
    try:
        answer = viewer.route("/run/run/row", {"key": row.key})
    finally:
        viewer.close()
    assert answer is not None
    html = answer[0].decode()
    assert "<script>" not in html and "<img src=x" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5  # response, matches, gate log, reason, diff
    timeline = html[html.index("requirement timeline"):html.index('<div class="phase-a">')]
    assert "REMOVE" not in timeline and "MODIFY" in timeline and "21% VAT instead of 20%" in timeline
