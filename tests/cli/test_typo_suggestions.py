"""A typo in a name gets the closest known name, from the real CLI (exit 2, one sentence): agents, judges,
conditions, protocols, bundled suites, and a takeover suite folder given where its project is expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.suggest import close_matches, did_you_mean
from tests.cli.generic_helpers import reqbench


@pytest.mark.parametrize(("args", "suggestion"), [
    (("run", "demo:specpath", "--agent", "referense"), "did you mean 'reference'?"),
    (("run", "demo:specpath", "--agent", "reference", "--judge", "exakt"), "did you mean 'exact'?"),
    (("run", "demo:takeover", "--agent", "reference", "--condition", "diag-c1"), "did you mean 'diag-C1'"),
    (("run", "demo:pace", "--agent", "reference", "--condition", "prdd"), "did you mean 'prd'"),
    (("demo", "--protocol", "specpth"), "did you mean 'specpath'?"),
    (("validate", "demo:specpath/slugkt"), "did you mean 'demo:specpath/slugkit'"),
    (("takeover", "validate", "demo:takeover"), "did you mean demo:takeover/project?"),
])
def test_a_typo_names_the_closest_known_name(args: tuple[str, ...], suggestion: str, tmp_path: Path) -> None:
    proc = reqbench(*args, *(("--out", str(tmp_path / "run")) if args[0] == "run" else ()))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert suggestion in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()


def test_nothing_close_suggests_nothing() -> None:
    assert did_you_mean("xyzzy", ["reference", "null"]) == ""
    assert close_matches("NULL", ["reference", "null"]) == ["null"]
