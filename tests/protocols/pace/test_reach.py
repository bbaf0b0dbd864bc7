"""`l1.reach.reachable`: declarations reachable from a repository's entry points or tests, over a real
L1 index of a small tree -- and the helpers no live code calls, even when named like a live callee."""

from __future__ import annotations

from pathlib import Path

from reqbench.protocols.pace.l1.callgraph import RepoIndex
from reqbench.protocols.pace.l1.reach import reachable

FILES = {
    "app/__init__.py": "from app.money import to_cents\n__all__ = ['to_cents']\n",
    "app/money.py": "def to_cents(x):\n    return round(x, 2)\n\n\ndef unused():\n    return 1\n",
    "app/service.py": (
        "from app.money import to_cents\n\n\nclass Service:\n    def issue(self, x):\n        return to_cents(x)\n\n\n"
        "class Never:\n    def words(self):\n        return 'credit'\n\n\n"
        "def _h2():\n    _h1()\n\n\ndef _h1():\n    return 1\n"
    ),
    "app/stuff.py": "def to_cents():\n    return 'borrowed name'\n\n\ndef issue():\n    return 2\n",
    "app/cli.py": "def main():\n    return 0\n\n\nif __name__ == '__main__':\n    main()\n",
    "app/guarded.py": (
        "from app.stuff import issue\n\n\ndef _chain():\n    return 1\n\n\nif 0:\n    HANDLERS = [_chain]\n\n\n"
        "def live():\n    if __name__ == '<never>':\n        issue()\n    return 0\n\n\nlive()\n"
    ),
    "app/imports_only.py": "from app.stuff import issue\nfrom app.money import unused\n",
    "app/dead.py": "def entry():\n    return 0\n\n\nif __name__ == '<never>':\n    entry()\n",
    "tests/test_service.py": "from app.service import Service\n\n\ndef test_issue():\n    assert Service().issue(1)\n",
    "web/cart.js": "export class Cart {\n  total() { return 1; }\n}\nfunction helper() { return 2; }\n",
    "web/app.js": "import { Cart } from './cart.js';\nexport function build() { return new Cart(); }\n",
}


def test_only_code_reachable_from_entry_points_or_tests(tmp_path: Path) -> None:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    keys = reachable(RepoIndex.build(tmp_path))
    assert {"tests/test_service.py::test_issue", "app/service.py::Service", "app/service.py::Service.issue",
            "app/money.py::to_cents", "app/cli.py::main", "web/cart.js::Cart", "web/cart.js::Cart.total",
            "web/app.js::build"} <= keys
    assert not {"app/money.py::unused", "app/service.py::Never", "app/service.py::Never.words",
                "app/service.py::_h2", "app/service.py::_h1", "app/stuff.py::to_cents", "app/stuff.py::issue",
                "app/dead.py::entry", "web/cart.js::helper", "app/guarded.py::_chain"} & keys
    assert "app/guarded.py::live" in keys  # called at the top level; what it calls under `if __name__ == '<never>'` is not
