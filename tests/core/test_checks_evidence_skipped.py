"""The guard's records name the tests pytest skipped (a skipped test is reported, never passing evidence)."""

import json

from reqbench.core.checks.evidence import parse_guard_records


def test_skipped_phases_are_listed_and_do_not_pass() -> None:
    token = "t" * 32
    lines = [{"t": token, "e": "start"}, {"t": token, "e": "phase", "id": "a", "when": "call", "outcome": "passed"},
             {"t": token, "e": "phase", "id": "b", "when": "setup", "outcome": "skipped"}]
    ev = parse_guard_records("\n".join(json.dumps(x) for x in lines).encode(), token)
    assert ev.skipped() == ["b"]
    assert ev.tests() == {"a": True, "b": False}
