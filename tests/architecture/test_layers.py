"""The layering holds: core imports nothing above it, no protocol imports another, report never imports the
CLI, the study package neither imports nor names a protocol, and no import cycle exists anywhere in `src/`
(imports inside functions included)."""

from __future__ import annotations

import re

from reqbench.core import registry
from tests.architecture.import_graph import SRC, build_graph, package_cycles

GRAPH = build_graph()


def _edges(src_prefix: str, dst_prefix: str) -> list[tuple[str, str]]:
    return sorted((a, b) for a, b in GRAPH.edges if a.startswith(src_prefix) and b.startswith(dst_prefix))


def test_no_import_cycle_in_src() -> None:
    assert package_cycles(GRAPH) == []


def test_core_imports_nothing_from_protocols_report_or_cli() -> None:
    for upper in ("reqbench.protocols", "reqbench.report", "reqbench.cli"):
        assert _edges("reqbench.core", upper) == []


def test_no_protocol_imports_another() -> None:
    names = {m.split(".")[2] for m in GRAPH if m.startswith("reqbench.protocols.") and m.count(".") >= 2}
    names.discard("base")
    for name in names:
        for other in names - {name}:
            assert _edges(f"reqbench.protocols.{name}", f"reqbench.protocols.{other}") == []


def test_report_never_imports_the_cli() -> None:
    assert _edges("reqbench.report", "reqbench.cli") == []


def test_the_graph_sees_imports_inside_functions() -> None:
    """Guard against a blind checker: `runstore.export_jsonl` imports `store.export` inside a method."""
    assert GRAPH.has_edge("reqbench.core.store.runstore", "reqbench.core.store.export")


def test_study_never_imports_the_cli() -> None:
    assert _edges("reqbench.study", "reqbench.cli") == []


def test_nothing_below_study_imports_it() -> None:
    for lower in ("reqbench.core", "reqbench.protocols", "reqbench.report"):
        assert _edges(lower, "reqbench.study") == []


def test_nothing_below_interop_imports_it() -> None:
    """`reqbench.interop` reads several protocols' suites (export to other harnesses): only the CLI uses it."""
    for lower in ("reqbench.core", "reqbench.protocols", "reqbench.report", "reqbench.study"):
        assert _edges(lower, "reqbench.interop") == []


GENERIC_PROTOCOL_MODULES = {"reqbench.protocols", "reqbench.protocols.base", "reqbench.protocols.lookup"}
"""What the protocols layer offers every caller: the interface and finding a suite's protocol, no protocol."""


def test_study_imports_no_protocol() -> None:
    """A study reaches a protocol only through its hooks (`SuiteProtocol.study`, `core.protocol_study`): no
    module of `reqbench.study` imports a protocol's package, so a plugin protocol is served like reqbench's."""
    assert [(a, b) for a, b in _edges("reqbench.study", "reqbench.protocols") if b not in GENERIC_PROTOCOL_MODULES] \
        == []


def test_study_names_no_protocol() -> None:
    """No identifier, string or docstring under `reqbench/study` names a registered protocol (paper names such as
    PACE-Bench are citations, not protocol names: names are matched as written, lower case)."""
    names = "|".join(sorted(registry.names("protocols")))
    word = re.compile(rf"\b({names})\b")
    found = [f"{p.relative_to(SRC)}:{n}: {m.group(0)}" for p in sorted((SRC / "reqbench" / "study").rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) for m in word.finditer(line)]
    assert len(list((SRC / "reqbench" / "study").rglob("*.py"))) > 10 and found == []
