"""What a protocol offers the generic commands (`validate`, `run`, `report`, `demo`).

Each protocol package has a `suite.py` defining ``PROTOCOL``, an object satisfying `SuiteProtocol`.
`detect_protocol` picks the protocol of a suite directory from its marker file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row, RowOutcome, RunOptions


class SuiteProtocol(Protocol):
    name: str

    def detect(self, path: Path) -> bool:
        """True when `path` is a suite (or single task) of this protocol."""
        ...

    def validate(self, path: Path) -> list[str]:
        """All problems found, each one sentence naming file, item and rule; [] when valid."""
        ...

    def plan(self, path: Path, options: RunOptions) -> list[Row]: ...

    def run_row(self, path: Path, row: Row, options: RunOptions, work_dir: Path) -> RowOutcome: ...

    def reevaluate(self, path: Path, row: Row, previous: RowOutcome, options: RunOptions,
                   work_dir: Path) -> RowOutcome:
        """Re-run only the evaluation of a *pending* row on its frozen submission (`--resume`).

        Never re-runs the agent. A protocol with nothing to re-evaluate returns `previous`.
        """
        ...

    def summarize(self, path: Path, rows: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
        """The protocol's report dict (what `reqbench report --json` prints under its name)."""
        ...

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        """The bundled suite(s) and run options `reqbench demo` executes for this protocol."""
        ...


def marker_protocol(file: Path) -> str | None:
    """The ``protocol:`` named by a suite marker file (suite.yaml, case.yaml, ...), or None when the file
    is missing, unreadable, not YAML or names no protocol. Detection never raises."""
    import yaml

    try:
        data = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    value = data.get("protocol") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def load_protocol(name: str) -> SuiteProtocol:
    """The protocol registered as `name` (``reqbench.protocols`` entry points, or a dotted path)."""
    return registry.load("protocols", name)  # type: ignore[no-any-return]


def available_protocols() -> list[SuiteProtocol]:
    """Every registered protocol (reqbench's four and any installed plugin's), in name order."""
    return registry.load_all("protocols")


def detect_protocol(path: Path) -> SuiteProtocol:
    path = Path(path)
    if not path.exists():
        raise InputError("no such suite directory", file=str(path))
    for proto in available_protocols():
        if proto.detect(path):
            return proto
    raise InputError("not a suite of any known protocol (no suite.yaml / family.yaml / instance.yaml / "
                     "case.yaml with a known protocol)", file=str(path))
