"""The boundary between the runner and the protocols is typed: nothing holds a protocol as `Any`, nothing
asks whether a protocol has a headline, and the report renders a `Summary` without naming any protocol.
Every registered protocol satisfies `SuiteProtocol`, and what it loads satisfies `Suite`."""

from __future__ import annotations

import re
from pathlib import Path

from reqbench.core.execute.suite import Suite, SuiteProtocol
from reqbench.protocols.base import available_protocols

SRC = Path(__file__).resolve().parents[2] / "src" / "reqbench"
ANY_PROTOCOL = re.compile(r"\b(protocol|proto)\s*:\s*Any\b")
HASATTR_HEADLINE = re.compile(r"hasattr\([^)]*['\"]headline['\"]")
PROTOCOL_NAMES = re.compile(r"['\"](takeover|specpath|journey|pace)['\"]")
RENDERERS = sorted(str(p.relative_to(SRC)) for p in (SRC / "report").rglob("*.py")) + [
    "cli/generic.py", "cli/generic_report.py"]
"""Every file of the report layer (tables, HTML, plots, exports, the viewer) and the generic commands: a
protocol describes its own pages as data (`core.views`), so none of them names one."""


def _sources() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "examples" not in p.relative_to(SRC).parts)


def test_no_protocol_is_held_as_any() -> None:
    found = [f"{p.relative_to(SRC)}:{n}" for p in _sources()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ANY_PROTOCOL.search(line)]
    assert found == []


def test_no_headline_is_found_by_hasattr() -> None:
    found = [str(p.relative_to(SRC)) for p in _sources() if HASATTR_HEADLINE.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_report_names_no_protocol() -> None:
    assert len(RENDERERS) > 20  # the glob found the report package
    found = {rel: PROTOCOL_NAMES.findall((SRC / rel).read_text(encoding="utf-8")) for rel in RENDERERS}
    assert {rel: names for rel, names in found.items() if names} == {}


def test_every_registered_protocol_and_the_suites_it_loads_are_typed() -> None:
    protocols = available_protocols()
    assert {"takeover", "specpath", "journey", "pace", "toy"} <= {p.name for p in protocols}
    for protocol in protocols:
        assert isinstance(protocol, SuiteProtocol), protocol.name
        for path, _ in protocol.demo_runs():
            suite = protocol.load(path)
            assert isinstance(suite, Suite) and suite.protocol is protocol and suite.path == path


def test_no_protocol_builds_or_classifies_an_agent_itself() -> None:
    """Protocols run agents only through `RowContext.step` / `.session` (core.execute.agent_step): no protocol
    imports the agent registry or reads an outcome from an agent's message text."""
    forbidden = re.compile(r"agents\.registry|make_agent\(|provider_reason|\.startswith\(\"CLARIFY|"
                           r"\"does not apply\" in|\"judge pending\" in")
    found = [f"{p.relative_to(SRC)}:{n}" for p in sorted((SRC / "protocols").rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if forbidden.search(line)]
    assert found == []


def test_row_results_are_read_through_their_model() -> None:
    """A stored row result is read through the protocol's `result_model` (``Model.of(result)``), never by key:
    so every field a consumer reads is declared, typed and documented in ``reqbench schema``. (Building a
    result, and passing its keys through unchanged, is not reading it.)"""
    by_key = re.compile(r"\.result\.get\(|\.result\[[^\]]+\](?!\s*=)(?! for k in)")
    found = [f"{p.relative_to(SRC)}:{n}" for p in _sources()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if by_key.search(line) and "step.result" not in line]
    assert found == []
