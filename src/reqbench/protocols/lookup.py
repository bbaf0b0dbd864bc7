"""Which protocol a suite directory belongs to: the one its marker file names (only that protocol is
imported), else the first registered protocol whose detection accepts it.

Used by the library entry point (`reqbench.api`), studies and the command line alike.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml
from reqbench.core.suggest import did_you_mean
from reqbench.protocols.base import SuiteProtocol, detect_protocol, load_protocol

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
        return InputError(f"unknown protocol {name!r}{did_you_mean(name, known)}; known protocols: "
                          f"{', '.join(known)}", file=str(marker))
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
