"""Find every place a module of `src/` can start a process: calls or references of the process-starting
functions of ``subprocess``, ``os``, ``asyncio`` and ``pty``, under any import spelling (``import
subprocess as sp``, ``from os import system``, ``getattr(os, "system")``, ``__import__("subprocess")``),
each reported with its module and the function (qualified name) it lies in."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

BANNED = {
    "subprocess": frozenset({"run", "Popen", "call", "check_call", "check_output", "getoutput",
                             "getstatusoutput"}),
    "os": frozenset({"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"}),
    "asyncio": frozenset(),
    "pty": frozenset({"spawn", "fork"}),
}
BANNED_PREFIXES = {"os": ("exec", "spawn"), "asyncio": ("create_subprocess_",)}
DYNAMIC_IMPORTS = frozenset({"__import__", "import_module"})


def banned(module: str, name: str) -> bool:
    """Whether ``module.name`` starts a process."""
    return name in BANNED.get(module, ()) or name.startswith(BANNED_PREFIXES.get(module, ("\0",)))


@dataclass(frozen=True, order=True)
class Use:
    module: str
    function: str
    line: int
    what: str


class _Scanner(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> process module it stands for
        self.names: dict[str, str] = {}  # local name -> "module.function" it was imported as
        self.uses: list[Use] = []

    def _found(self, node: ast.AST, what: str) -> None:
        self.uses.append(Use(self.module, ".".join(self.scope) or "<module>", getattr(node, "lineno", 0), what))

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top in BANNED:
                self.modules[alias.asname or top] = top if alias.asname is None else alias.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = (node.module or "").split(".")[0]
        for alias in node.names:
            if source in BANNED and banned(source, alias.name):
                self.names[alias.asname or alias.name] = f"{source}.{alias.name}"
                self._found(node, f"from {source} import {alias.name}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id in self.modules:
            module = self.modules[node.value.id]
            if banned(module, node.attr):
                self._found(node, f"{module}.{node.attr}")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.names and isinstance(node.ctx, ast.Load):
            self._found(node, self.names[node.id])

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        literal = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if name == "getattr" and len(node.args) >= 2 and isinstance(node.args[0], ast.Name):
            module = self.modules.get(node.args[0].id)
            if module is not None and literal and banned(module, literal[0]):
                self._found(node, f"getattr({module}, {literal[0]!r})")
        if name in DYNAMIC_IMPORTS and literal and literal[0].split(".")[0] in BANNED:
            self._found(node, f"{name}({literal[0]!r})")
        self.generic_visit(node)


def scan_source(text: str, module: str) -> list[Use]:
    """Every process start in the source `text` of `module`."""
    scanner = _Scanner(module)
    scanner.visit(ast.parse(text))
    return sorted(scanner.uses)


def scan_src(root: Path = SRC) -> list[Use]:
    """Every process start in every module below `root`."""
    uses: list[Use] = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        uses += scan_source(path.read_text(encoding="utf-8"), module)
    return uses
