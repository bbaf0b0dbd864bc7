"""L0 closes points only on conclusive violations in a complete scope, and never returns Covered."""

from pathlib import Path

import pytest

from reqbench.protocols.pace.l0 import check_contract
from reqbench.protocols.pace.l1.callgraph import RepoIndex
from reqbench.protocols.pace.models import SymbolicContract


def _tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, RepoIndex]:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path, RepoIndex.build(tmp_path)


def _c(**kw: object) -> SymbolicContract:
    return SymbolicContract.model_validate(kw)


def test_absent_symbol_in_complete_scope_is_missing(tmp_path: Path) -> None:
    tree, idx = _tree(tmp_path, {"pkg/mod.py": "def other():\n    return 1\n"})
    r = check_contract(_c(strategy="symbol_exists", target="pkg/mod.py::Wanted"), tree, idx)
    assert r.status == "missing"


def test_present_symbol_defers_because_names_prove_nothing(tmp_path: Path) -> None:
    tree, idx = _tree(tmp_path, {"pkg/mod.py": "class Wanted:\n    pass\n"})
    r = check_contract(_c(strategy="symbol_exists", target="pkg/mod.py::Wanted"), tree, idx)
    assert r.status == "deferred"


@pytest.mark.parametrize("source", ["from .other import *\n", "def __getattr__(name):\n    return 1\n",
                                    "def f(:\n"])
def test_incomplete_scope_defers_instead_of_rejecting(tmp_path: Path, source: str) -> None:
    tree, idx = _tree(tmp_path, {"pkg/mod.py": source})
    r = check_contract(_c(strategy="symbol_exists", target="pkg/mod.py::Wanted"), tree, idx)
    assert r.status == "deferred"


def test_delegated_name_bound_by_import_defers(tmp_path: Path) -> None:
    tree, idx = _tree(tmp_path, {"pkg/mod.py": "from pkg.impl import Wanted\n"})
    assert check_contract(_c(strategy="symbol_exists", target="pkg/mod.py::Wanted"), tree, idx).status == "deferred"


def test_signature_missing_parameter_is_missing_but_kwargs_is_a_legal_interface(tmp_path: Path) -> None:
    tree, idx = _tree(tmp_path, {"m.py": "def f(a):\n    return a\n\ndef g(a, **kw):\n    return a\n"})
    assert check_contract(_c(strategy="signature", target="m.py::f", params=["a", "b"]), tree, idx).missing
    assert check_contract(_c(strategy="signature", target="m.py::g", params=["a", "b"]), tree, idx).status == \
        "deferred"


def test_export_and_config_contracts(tmp_path: Path) -> None:
    tree, idx = _tree(tmp_path, {"p/__init__.py": "__all__ = ['A']\n", "q/__init__.py": "__all__ = names()\n",
                                 "s.toml": "[x]\ny = 3\n"})
    assert check_contract(_c(strategy="exported", target="p/__init__.py", name="B"), tree, idx).missing
    assert check_contract(_c(strategy="exported", target="q/__init__.py", name="B"), tree, idx).status == "deferred"
    assert check_contract(_c(strategy="config_value", target="s.toml", key="x.y", value=4), tree, idx).missing
    assert check_contract(_c(strategy="config_value", target="s.toml", key="x.y", value=3), tree, idx).status == \
        "deferred"
