"""reqbench_pytest: ``python -P -m reqbench_pytest ARGS`` runs pytest with the guard plugin registered.

The same session as ``python -P -m pytest -p reqbench_guard ARGS``, with the guard handed to pytest as a
module object (under its own name, ``reqbench_guard``) instead of by name. A ``-p NAME`` makes pytest look
the name up among every installed distribution's entry points and compile the module through its
assertion rewriter, which costs more than the guard itself does over a whole session; imported here, the
guard loads from its byte code like any module.

Standalone on purpose (it imports nothing from reqbench). A task environment's interpreter runs it as a
script instead (``python GUARD/reqbench_pytest.py ARGS``), which puts the guard's folder first on
``sys.path`` on any Python 3. pytest is imported first, as ``-m pytest``
would, then the guard, which takes its descriptors and only then puts the workspace on ``sys.path``
(see ``reqbench_guard``): nothing of the submission can be imported before either.
"""

from __future__ import annotations

import sys

import pytest
import reqbench_guard

if __name__ == "__main__":
    raise SystemExit(pytest.main(sys.argv[1:], plugins=[reqbench_guard]))
