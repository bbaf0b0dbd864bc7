"""Instance validation by execution (SWE-Journey §3.2 execution checks, A.4 whole-task node sets).

Starting from the base repository, the reference patches are applied in subtask order. Before and after
each patch the hidden tests run once. The rules:

* every F2P node of subtask k fails before its patch and passes after it;
* every P2P node of subtask k passes before and after its patch;
* the whole-task F2P set (union of subtask F2P) fails on the base and passes at the end; the whole-task
  P2P set (declared P2P nodes that are nobody's F2P) passes on the base and at the end;
* empty buckets fail closed: a subtask without F2P nodes, or an instance with an empty whole-task F2P set,
  is a failure, never a vacuous pass.

N subtasks cost N + 1 test runs (the state after patch k is the state before patch k + 1).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.errors import HarnessError
from reqbench.protocols.journey.env import PatchApplyError, apply_patch, make_workspace
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.online import TestRun, run_hidden_tests


@dataclass
class Finding:
    """One broken rule: which subtask, which node, which rule."""

    subtask: str
    node: str
    rule: str

    def sentence(self) -> str:
        where = f"subtask {self.subtask}" if self.subtask else "instance"
        return f"{where}: {self.node}: {self.rule}" if self.node else f"{where}: {self.rule}"


@dataclass
class CalibrationReport:
    instance: str
    ok: bool
    findings: list[Finding] = field(default_factory=list)
    subtasks: list[dict[str, Any]] = field(default_factory=list)
    whole_f2p: int = 0
    whole_p2p: int = 0
    test_runs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"instance": self.instance, "ok": self.ok, "whole_f2p": self.whole_f2p,
                "whole_p2p": self.whole_p2p, "test_runs": self.test_runs, "subtasks": self.subtasks,
                "findings": [asdict(f) | {"message": f.sentence()} for f in self.findings]}


def _check(findings: list[Finding], sub: str, nodes: list[str], run: TestRun, want: bool,
           rule: str) -> None:
    for node in nodes:
        if run.passed(node) != want:
            findings.append(Finding(sub, node, rule))


def calibrate(instance: Instance, scratch: Path | None = None) -> CalibrationReport:
    """Apply every reference patch in order and check the F2P/P2P rules; never raises on a finding."""
    report = CalibrationReport(instance=instance.id, ok=False, whole_f2p=len(instance.whole_f2p),
                               whole_p2p=len(instance.whole_p2p))
    findings = report.findings
    if not instance.whole_f2p:
        findings.append(Finding("", "", "whole-task F2P set is empty (fail closed)"))
        return report
    with tempdirs.folder("journey-calib", scratch) as tmp:
        tree = make_workspace(instance.repo_dir, Path(tmp) / "tree")
        try:
            before = base = run_hidden_tests(instance, tree, scratch)
            report.test_runs = 1
            for sub in instance.subtasks:
                p2p = instance.p2p_of(sub)
                _check(findings, sub.id, sub.f2p, before, False, "F2P node passes before the patch")
                _check(findings, sub.id, p2p, before, True, "P2P node fails before the patch")
                try:
                    apply_patch(tree, instance.patch_text(sub))
                except PatchApplyError as exc:
                    findings.append(Finding(sub.id, "", f"reference patch does not apply ({exc})"))
                    return report
                after = run_hidden_tests(instance, tree, scratch)
                report.test_runs += 1
                _check(findings, sub.id, sub.f2p, after, True, "F2P node fails after the patch")
                _check(findings, sub.id, p2p, after, True, "P2P node fails after the patch")
                report.subtasks.append({"id": sub.id, "f2p": len(sub.f2p), "p2p": len(p2p),
                                        "f2p_after": after.rate(sub.f2p), "p2p_after": after.rate(p2p)})
                before = after
        except HarnessError as exc:
            findings.append(Finding("", "", f"hidden tests could not run: {exc}"))
            return report
        _check(findings, "", instance.whole_f2p, base, False, "whole-task F2P node passes on the base")
        _check(findings, "", instance.whole_f2p, before, True, "whole-task F2P node fails at the end")
        _check(findings, "", instance.whole_p2p, base, True, "whole-task P2P node fails on the base")
        _check(findings, "", instance.whole_p2p, before, True, "whole-task P2P node fails at the end")
    report.ok = not findings
    return report
