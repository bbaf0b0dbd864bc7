"""Finding a suite (``demo:NAME`` or a path) and the protocol of a suite or of a run.

Protocols come from the registry (`reqbench.core.registry`, entry-point group ``reqbench.protocols``): a
package that registers one there is found here with no change to reqbench.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core import registry
from reqbench.core.bundled import resolve_suite
from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml
from reqbench.protocols.base import SuiteProtocol, available_protocols, detect_protocol, load_protocol


def suite_spec(value: Path) -> Path:
    """Typer callback of every suite/task argument: ``demo:NAME[/TASK]`` is a bundled suite, found from any
    working directory (`reqbench.core.bundled`); any other value is a path, unchanged."""
    return resolve_suite(value)


def all_protocols() -> list[SuiteProtocol]:
    return available_protocols()


MARKERS = ("suite.yaml", "family.yaml", "instance.yaml", "case.yaml")


def _marker(path: Path) -> tuple[Path | None, str | None, InputError | None]:
    """The suite's marker file, the protocol name it declares (None when it declares none), or why it
    cannot be read."""
    root = Path(path)
    marker = next((root / m for m in MARKERS if (root / m).is_file()), None)
    if marker is None:
        return None, None, None
    try:
        data = read_yaml(marker)
    except InputError as exc:
        return marker, None, exc
    name = data.get("protocol") if isinstance(data, dict) else None
    return marker, name if isinstance(name, str) else None, None


def marker_problem(path: Path) -> InputError | None:
    """Why a suite's marker file names no known protocol, in plain words with line and column: invalid
    UTF-8, a YAML syntax error, a missing or unknown ``protocol:`` (listing the known ones). Only the
    registry's names are read: no protocol is imported."""
    marker, name, problem = _marker(path)
    if problem is not None or marker is None or name is None:  # without a name, detection decides
        return problem
    known = registry.names("protocols")
    if name not in known:
        return InputError(f"unknown protocol {name!r}; known protocols: {', '.join(known)}", file=str(marker))
    return None


def protocol_for_suite(path: Path) -> SuiteProtocol:
    """The suite's protocol: the one its marker names when that protocol recognises the suite (only that
    protocol is imported), else the first whose detection accepts it."""
    problem = marker_problem(path)
    if problem is not None:
        raise problem
    _, name, _ = _marker(path)
    if name is not None:
        named: SuiteProtocol = load_protocol(name)
        if named.detect(Path(path)):
            return named
    return detect_protocol(path)


def protocol_by_name(name: str) -> SuiteProtocol:
    try:
        return load_protocol(name)
    except InputError as exc:
        raise InputError(f"the run's protocol is not available in this installation ({exc})",
                         item=name) from exc
