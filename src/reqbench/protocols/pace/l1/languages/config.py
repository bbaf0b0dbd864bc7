"""Configuration files contribute `config` bindings: a key bound to a dotted symbol or `module:attr`.

Parsing is line-based on purpose (YAML, TOML, INI, CFG and JSON all put one binding per line in
practice); the value's last name segment is the target the call graph resolves.
"""

from __future__ import annotations

import re

from reqbench.protocols.pace.l1.languages.facts import Binding, EdgeKind, FileFacts

_LINE = re.compile(r"""^\s*["']?([A-Za-z_][\w.\-]*)["']?\s*[:=]\s*["']?([A-Za-z_][\w.]*(?::[A-Za-z_]\w*)?)["']?\s*,?\s*$""")


def parse(path: str, text: str) -> FileFacts:
    facts = FileFacts(path=path, language="config")
    for no, line in enumerate(text.splitlines(), start=1):
        m = _LINE.match(line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if value.lower() in {"true", "false", "null", "none", "yes", "no"}:
            continue
        target = re.split(r"[.:]", value)[-1]
        facts.bindings.append(Binding(path, no, EdgeKind.CONFIG, key, target, line.strip()))
    return facts
