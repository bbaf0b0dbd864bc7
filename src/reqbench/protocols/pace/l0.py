"""L0: deterministic validation of symbolic contracts (paper §3.1 L0; appendix §13 "Structural certainty").

L0 closes a point as **Missing only on a conclusive violation inside a complete inspected scope**;
otherwise it defers to L1. It never returns Covered: a name's presence proves nothing about behaviour.
Scope is incomplete (-> defer) when the target file failed to parse cleanly, uses constructs that can
define names invisibly (star import, module ``__getattr__``, ``globals()``), or the interface is legal
but unusual (``*args``/``**kwargs``, decorators that may rewrite a signature, a dynamic ``__all__``).
"""

from __future__ import annotations

import configparser
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reqbench.protocols.pace.l1.callgraph import RepoIndex
from reqbench.protocols.pace.l1.languages import module_candidates
from reqbench.protocols.pace.models import ContractStrategy, SymbolicContract


@dataclass(frozen=True)
class L0Result:
    status: str
    """``missing`` (conclusive violation) or ``deferred``; never ``covered``."""
    reason: str
    inspected: list[str] = field(default_factory=list)

    @property
    def missing(self) -> bool:
        return self.status == "missing"

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "inspected": self.inspected}


def _defer(reason: str, *inspected: str) -> L0Result:
    return L0Result("deferred", reason, list(inspected))


def _missing(reason: str, *inspected: str) -> L0Result:
    return L0Result("missing", reason, list(inspected))


def split_target(target: str) -> tuple[str, str | None]:
    path, sep, symbol = target.partition("::")
    return path, (symbol or None) if sep else None


def check_contract(contract: SymbolicContract, tree: Path, index: RepoIndex) -> L0Result:
    """Apply one symbolic contract to the candidate tree (the one function that owns the L0 rule)."""
    path, symbol = split_target(contract.target)
    if contract.strategy is ContractStrategy.CONFIG_VALUE:
        return _config_value(contract, tree, path)
    module_paths = module_candidates(path)
    present = [p for p in module_paths if (tree / p).is_file()]
    if not present:
        if contract.strategy is ContractStrategy.SYMBOL_EXISTS and symbol is None:
            return _missing(f"required module {path} does not exist", *module_paths)
        return _missing(
            f"target file {path} does not exist, so {symbol or contract.name} cannot be there", *module_paths
        )
    rel = present[0]
    facts = index.files.get(rel)
    if facts is None:
        return _defer(f"{rel} could not be indexed", rel)
    if not facts.parse_ok:
        return _defer(f"{rel} has syntax errors; the inspected scope is incomplete", rel)
    if contract.strategy is ContractStrategy.EXPORTED:
        name = contract.name or symbol or ""
        exports = "__all__" if facts.language == "python" else "the export list"
        if facts.all_dynamic:
            return _defer(f"{exports} of {rel} is not literal", rel)
        if facts.all_names is None:
            return _missing(f"{rel} has no __all__, so {name!r} is not exported", rel)
        if name in facts.all_names:
            return _defer(f"{name!r} is exported; behaviour is for L1/L2", rel)
        return _missing(f"{name!r} is not in {exports} of {rel}", rel)
    if facts.dynamic:
        return _defer(f"{rel} may define names dynamically ({', '.join(sorted(set(facts.dynamic)))})", rel)
    if symbol is None:
        return _defer(f"{rel} exists; package structure is settled by L1", rel)
    matches = [d for d in facts.decls if d.qname == symbol]
    aliased = [
        b
        for b in facts.bindings
        if b.kind.value in ("import", "assignment")
        and b.source.rsplit(".", 1)[-1] == symbol.rsplit(".", 1)[-1]
    ]
    if not matches:
        if aliased or any(
            b.target.rsplit(".", 1)[-1] == symbol for b in facts.bindings if b.kind.value == "import"
        ):
            return _defer(f"{symbol} is bound by import/assignment in {rel} (delegation)", rel)
        return _missing(f"{symbol} is not declared in {rel}", rel)
    if contract.strategy is ContractStrategy.SYMBOL_EXISTS:
        return _defer(f"{symbol} is declared in {rel}; a name alone proves no behaviour", rel)
    decl = matches[-1]
    if decl.variadic:
        return _defer(f"{symbol} accepts *args/**kwargs (a legal interface)", rel)
    if decl.decorators:
        return _defer(f"{symbol} is decorated; the effective signature may differ", rel)
    absent = [p for p in contract.params if p not in decl.params]
    if absent:
        return _missing(f"{symbol} in {rel} lacks required parameter(s) {absent}", rel)
    return _defer(f"{symbol} accepts {contract.params}", rel)


def _config_value(contract: SymbolicContract, tree: Path, path: str) -> L0Result:
    file = tree / path
    if not file.is_file():
        return _missing(f"configuration file {path} does not exist", path)
    try:
        data = _load_config(file)
    except Exception as exc:  # noqa: BLE001 - any parse failure leaves the scope incomplete
        return _defer(f"{path} could not be parsed ({type(exc).__name__}); scope incomplete", path)
    node: Any = data
    for part in (contract.key or "").split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return _missing(f"{path} does not bind {contract.key}", path)
    if contract.value is not None and str(node) != str(contract.value):
        return _missing(f"{path} binds {contract.key} = {node!r}, contract requires {contract.value!r}", path)
    return _defer(f"{path} binds {contract.key} as required", path)


def _load_config(file: Path) -> Any:
    if file.is_symlink():  # never follow a link from the submission
        raise ValueError(f"{file.name} is a symbolic link")
    text = file.read_text(encoding="utf-8")
    suffix = file.suffix.lower()
    if suffix == ".json":
        return json.loads(text)
    if suffix == ".toml":
        return tomllib.loads(text)
    if suffix in (".ini", ".cfg"):
        parser = configparser.ConfigParser()
        parser.read_string(text)
        return {s: dict(parser[s]) for s in parser.sections()}
    return yaml.safe_load(text)
