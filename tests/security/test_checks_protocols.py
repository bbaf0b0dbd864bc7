"""Protocol-level red-team tests: an attacking submission gets no credit in specpath, journey or takeover.

The attack appended to the package under test rewrites pytest's report objects in-process so every
outcome reads "passed" (and pytest exits 0); the guard's evidence still shows the real results.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.workspace import apply_patch, copy_tree, materialize

pytestmark = pytest.mark.usefixtures("require_bwrap")

EXAMPLES = bundled_suite("specpath").parent

ATTACK = """

import _pytest.reports as _r

_orig_init = _r.TestReport.__init__


def _always_passed(self, *args, **kwargs):
    _orig_init(self, *args, **kwargs)
    self.outcome = "passed"


_r.TestReport.__init__ = _always_passed
"""

EXIT_ZERO = "\n\nimport os as _os, sys as _sys\nif 'pytest' in _sys.modules:\n    _os._exit(0)\n"


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_specpath_attack_gets_a_zero_signature(tmp_path: Path) -> None:
    from reqbench.protocols.specpath.family import load_family
    from reqbench.protocols.specpath.verifier import run_verifier

    family = load_family(EXAMPLES / "specpath" / "slugkit")
    honest = tmp_path / "honest"
    copy_tree(family.base_repo, honest)
    apply_patch(honest, family.patch_text(family.spec.reference_patch))
    run = run_verifier(family, honest)
    assert run.signature(family.probes) == [1] * len(family.probes), run.detail
    for i, attack in enumerate((ATTACK, EXIT_ZERO)):
        ws = tmp_path / f"attack-{i}"
        copy_tree(family.base_repo, ws)
        _append(ws / "src" / "slugkit" / "__init__.py", attack)
        run = run_verifier(family, ws)
        assert not run.harness_error, run.detail  # the submission's doing: a failure, not attrition
        assert run.signature(family.probes) == [0] * len(family.probes)


def test_journey_attack_gets_no_final_f2p(tmp_path: Path) -> None:
    from reqbench.protocols.journey.models import load_instance
    from reqbench.protocols.journey.online import run_hidden_tests

    inst = load_instance(EXAMPLES / "journey" / "tasklet")
    honest = tmp_path / "honest"
    copy_tree(inst.repo_dir, honest)
    for sub in inst.subtasks:
        apply_patch(honest, inst.patch_text(sub))
    assert run_hidden_tests(inst, honest).failing(inst.whole_f2p) == []
    attacked = tmp_path / "attack"
    copy_tree(inst.repo_dir, attacked)
    _append(attacked / "tasklet" / "__init__.py", ATTACK)
    (attacked / "tests" / "conftest.py").write_text("import pytest\n")  # protected: restored, recorded
    run = run_hidden_tests(inst, attacked)
    assert run.failing(inst.whole_f2p) == inst.whole_f2p
    assert run.failing(inst.spec.common_p2p) == inst.spec.common_p2p


def test_takeover_attack_fails_the_target_gate(tmp_path: Path) -> None:
    from reqbench.protocols.takeover.run.coding import run_gates
    from reqbench.protocols.takeover.run.context import SuiteContext

    suite = EXAMPLES / "takeover"
    ctx = SuiteContext.load(suite, tmp_path / "cache")
    target = "DOCKSIDE_T001"
    delivery = ctx.delivery(target)
    honest = materialize(ctx.initial_repository(target), tmp_path / "honest")
    apply_patch(honest.path, (suite / delivery.reference_patch).read_text(encoding="utf-8"))
    statuses, _ = run_gates(ctx, target, honest.path)
    assert statuses == {"build": "PASS", "target": "PASS", "regression": "PASS"}
    for i, attack in enumerate((ATTACK, EXIT_ZERO)):
        ws = materialize(ctx.initial_repository(target), tmp_path / f"attack-{i}")
        apply_patch(ws.path, (suite / delivery.negative_patches[0]).read_text(encoding="utf-8"))
        _append(ws.path / "billing" / "__init__.py", attack)
        statuses, details = run_gates(ctx, target, ws.path)
        assert statuses["build"] == "PASS" and statuses["target"] == "FAIL", details
