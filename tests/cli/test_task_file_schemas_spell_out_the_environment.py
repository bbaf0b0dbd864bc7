"""`reqbench schema <task-file>` spells out the ``environment:`` block's fields (`EnvironmentSpec`, inlined),
while loading a suite still never imports the environment builders (the field is a plain mapping until a
run needs the block; its schema is made only when a schema is printed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reqbench.core.environments.model import EnvironmentSpec

KINDS = sorted(EnvironmentSpec.model_fields)


@pytest.mark.parametrize("name, path", [("pace-case", ["environment"]), ("specpath-family", ["environment"]),
                                        ("journey-instance", ["environment"]),
                                        ("takeover-suite", ["environment"])])
def test_the_task_file_schema_holds_the_environment_fields(name: str, path: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "schema", name], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    field = json.loads(proc.stdout)["properties"][path[0]]
    block, null = field["anyOf"]
    assert null == {"type": "null"} and field["description"].startswith(("Where", "This"))
    assert sorted(block["properties"]) == KINDS == ["debian", "image", "node", "python", "setup"]
    python = block["properties"]["python"]["anyOf"][0]
    assert {"interpreter", "requirements", "lock"} <= set(python["properties"])
    assert block["additionalProperties"] is False
    assert "$ref" not in json.dumps(field)  # stands alone: no reference into a $defs the document lacks


def test_loading_a_suite_imports_no_environment_builder() -> None:
    probe = ("import json, sys\n"
             "from reqbench.core.bundled import bundled_suite\n"
             "from reqbench.protocols.lookup import protocol_for_suite\n"
             "for name in ('pace', 'specpath', 'journey'):\n"
             "    path = bundled_suite(name)\n"
             "    protocol_for_suite(path).load(path)\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('reqbench.'))))\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(proc.stdout.splitlines()[-1]))
    assert "reqbench.protocols.pace.models" in loaded and "reqbench.protocols.journey.models" in loaded
    assert not {m for m in loaded if m.startswith("reqbench.core.environments")}
