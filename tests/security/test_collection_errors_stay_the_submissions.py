"""A submission that breaks the import of the hidden tests gets a scored failure, never attrition.

Calibration treats a collection or import error under the *reference* patch as a failure of the verifier
(the harness's problem). The same signal under a submission must stay the submission's failure: otherwise
an agent that makes every probe module fail to import would turn its row into pending infrastructure
trouble instead of a zero, and a forged collection error could hide a bad answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.workspace import copy_tree

pytestmark = pytest.mark.usefixtures("require_bwrap")


def test_submission_import_error_is_a_zero_signature_not_a_verifier_failure(tmp_path: Path) -> None:
    from reqbench.protocols.specpath.family import load_family
    from reqbench.protocols.specpath.verifier import run_verifier

    family = load_family(bundled_suite("specpath") / "slugkit")
    ws = tmp_path / "attack"
    copy_tree(family.base_repo, ws)
    init = ws / "src" / "slugkit" / "__init__.py"
    init.write_text("raise ImportError('the hidden tests cannot import me')\n" + init.read_text())
    run = run_verifier(family, ws)
    assert run.collection_errors  # the guard saw the collector fail ...
    assert not run.harness_error, run.detail  # ... and it is the submission's failure, not attrition
    assert run.signature(family.probes) == [0] * len(family.probes)
