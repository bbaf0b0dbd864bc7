"""Probe reports of non-pytest verifiers: a JSON object {probe: bool} or a JUnit XML file in the output dir
(only as trustworthy as the command that wrote them; `{pytest}` checks use the guard instead)."""

from __future__ import annotations

import json
from pathlib import Path


def read_probe_json(path: Path) -> dict[str, bool]:
    """``{probe_id: true|false}``; anything else raises ValueError."""
    if not path.is_file():
        raise ValueError("missing")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, bool)
                                             for k, v in data.items()):
        raise ValueError("must be an object mapping probe ids to true/false")
    return dict(data)


def read_junit(path: Path, roots: list[Path]) -> dict[str, bool]:
    """Probe id (pytest node id) -> passed, from a JUnit XML report; ValueError when unusable.

    A test case passed when it has no failure, error or skipped child; a node listed twice (e.g. a
    teardown error) passes only if every entry passed.
    """
    import xml.etree.ElementTree as ET  # only for a JUnit verifier: `{pytest}` checks never load it

    if not path.is_file():
        raise ValueError("missing")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"not valid XML ({exc})") from None
    probes: dict[str, bool] = {}
    for case in root.iter("testcase"):
        node = junit_node_id(case.get("classname", ""), case.get("name", ""), case.get("file"), roots)
        passed = not any(child.tag in ("failure", "error", "skipped") for child in case)
        probes[node] = probes.get(node, True) and passed
    return probes


def junit_node_id(classname: str, name: str, file: str | None, roots: list[Path]) -> str:
    """Map pytest's JUnit ``classname``/``name`` (and ``file`` when present) back to its node id.

    pytest writes ``classname`` as the node id's path with ``/`` -> ``.`` and ``.py`` dropped, followed
    by the class chain. With ``file`` (junit_family=xunit1) the split is exact; otherwise the longest
    dotted prefix naming an existing ``.py`` file below one of `roots` is the module.
    """
    parts = classname.split(".") if classname else []
    module_len = 0
    if file:
        path = file.replace("\\", "/")
        dotted = (path[:-3] if path.endswith(".py") else path).replace("/", ".").split(".")
        if parts[:len(dotted)] == dotted:
            module_len = len(dotted)
    else:
        path = ""
        for i in range(len(parts), 0, -1):
            candidate = "/".join(parts[:i]) + ".py"
            if any((Path(r) / candidate).is_file() for r in roots):
                path, module_len = candidate, i
                break
        if not path:
            path, module_len = ("/".join(parts) + ".py" if parts else ""), len(parts)
    return "::".join([path, *parts[module_len:], name]) if path else name


