"""Finding a suite's protocol: the marker's ``protocol:`` names it, and only that protocol is imported.

Threats guarded: every command paying for importing all four protocols (and numpy/scipy with them)
before it does anything; an unknown name accepted; a suite without a name no longer detected.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.cli.protocol_lookup import protocol_for_suite
from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError

PROBE = """
import sys
from pathlib import Path
from reqbench.cli.protocol_lookup import protocol_for_suite
print(protocol_for_suite(Path(sys.argv[1])).name)
print(",".join(sorted({n.split(".")[2] for n in sys.modules if n.count(".") >= 2
                      and n.startswith("reqbench.protocols.") and n.split(".")[2] not in ("base", "lookup")})))
"""


@pytest.mark.parametrize("name", ["specpath", "takeover", "journey", "pace"])
def test_a_named_protocol_is_the_only_one_imported(name: str):
    out = subprocess.run([sys.executable, "-c", PROBE, str(bundled_suite(name))], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    assert out[0] == name and out[1] == name


def test_unknown_names_are_refused_and_unnamed_suites_detected(tmp_path: Path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "suite.yaml").write_text("protocol: nosuch\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown protocol 'nosuch'; known protocols: harbor, journey, pace, specpath"):
        protocol_for_suite(tmp_path / "bad")
    family = bundled_suite("specpath") / "slugkit"  # a family folder: detected by its family.yaml
    assert protocol_for_suite(family).name == "specpath"
