"""How big a takeover suite is, computed from its files: the conversation, the annotation, the targets,
the hidden tests, the repository and the reference solutions.

Used by the real-suite demo and its test to print sizes next to scores, so a suite's scale is stated from
the artefacts, never by hand. `suite_size(..., with_repository=True)` also measures the repository at
the start of the timeline (a fetched source is downloaded into the cache on first use).
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.hashing import read_json
from reqbench.core.workspace.pypi_diff import touched
from reqbench.core.workspace.trees import walk_tree
from reqbench.protocols.takeover.suite_file import load_suite, repository_tree


@dataclass(frozen=True)
class SuiteSize:
    suite: str
    messages: int
    client_messages: int
    atoms: int
    events: int
    events_by_type: dict[str, int]
    targets: int
    """Selected targets (one client message each), with or without code delivery."""
    delivery_targets: int
    hidden_tests: int
    """Test functions in the hidden folders of the delivery targets."""
    reference_files: int
    """Distinct files the reference solutions touch."""
    reference_added: int
    reference_removed: int
    timeline_patches: int
    repository_files: int | None = None
    repository_python_lines: int | None = None
    hidden_tests_by_target: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _test_functions(folder: Path) -> int:
    count = 0
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        count += sum(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
                     for node in ast.walk(tree))
    return count


def suite_size(suite_dir: Path, *, with_repository: bool = False) -> SuiteSize:
    suite_dir = Path(suite_dir)
    suite = load_suite(suite_dir)
    project = suite_dir / suite.project
    messages = read_json(project / "normalized_project.json")["messages"]
    requirements = read_json(project / "annotation.json")["requirements"]
    events = Counter(e["event_type"] for r in requirements for e in r["events"])
    targets = read_json(project / "selected_target_times.json")["selected_targets"]
    hidden = {d.target_id: _test_functions(suite_dir / d.hidden) for d in suite.delivery}
    files: set[str] = set()
    added = removed = 0
    for d in suite.delivery:
        touched_files, plus, minus = touched((suite_dir / d.reference_patch).read_text(encoding="utf-8"))
        files.update(touched_files)
        added, removed = added + plus, removed + minus
    repo_files = repo_lines = None
    if with_repository and suite.repository is not None:
        root = repository_tree(suite_dir, suite)
        paths = [e.path for e in walk_tree(root) if e.kind == "file"]
        repo_files = len(paths)
        repo_lines = sum(len(p.read_text(encoding="utf-8", errors="replace").splitlines())
                         for p in paths if p.suffix == ".py")
    return SuiteSize(
        suite=suite.name, messages=len(messages),
        client_messages=sum(m["speaker"] == "client" for m in messages), atoms=len(requirements),
        events=sum(events.values()), events_by_type=dict(sorted(events.items())), targets=len(targets),
        delivery_targets=len(suite.delivery), hidden_tests=sum(hidden.values()), reference_files=len(files),
        reference_added=added, reference_removed=removed, timeline_patches=len(suite.timeline),
        repository_files=repo_files, repository_python_lines=repo_lines, hidden_tests_by_target=hidden)
