"""The viewer's pages name their argument types (`site.Site`, `run_context.RunContext`) from modules that import
no page and no server, so no cycle runs through the viewer even counting imports made for type hints only."""

from __future__ import annotations

from tests.architecture.import_graph import build_graph, package_cycles

VIEWER = "reqbench.report.viewer"


def test_no_cycle_in_the_viewer_even_through_type_only_imports() -> None:
    graph = build_graph(type_only=True)
    viewer = graph.subgraph([m for m in graph.nodes if m == VIEWER or m.startswith(VIEWER + ".")])
    assert package_cycles(viewer) == []


def test_no_page_imports_the_server() -> None:
    graph = build_graph(type_only=True)
    importers = sorted(a for a, b in graph.edges if b == f"{VIEWER}.server" and a != VIEWER)
    assert importers == []
