"""Verifier calibration (SpecPath "Verifier calibration"): can V_i tell the contract from near-misses?

Every fixed patch — the empty base, the reference, one selective negative per atom — is applied to a
fresh base workspace once per core history, with that history's rendered file present in the workspace,
and the verifier runs. The gates, each recorded with its evidence in the audit record:

* ``histories``     every history replays to the same final contract (`specpath check`);
* ``buckets``       every probe id collects at least one test case (empty buckets fail closed);
* ``verifier``      no run was a verifier-infrastructure failure, and under the reference every probe was
                    collected: a collection or import error of the hidden tests on the accepted change is
                    the verifier's failure, never a pass of this gate;
* ``reference``     the reference patch passes every probe;
* ``base``          the unmodified base fails (at least one probe is 0);
* ``negatives``     each atom has a negative that is non-empty, applies cleanly and fails a probe of its
                    target atom while every probe of the other atoms passes (selective negatives);
* ``invariance``    each fixed patch gives one identical signature under all five core histories (a
                    verifier that reads the prompt cannot support the counterfactual).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.workspace import PatchApplyError, materialize
from reqbench.protocols.specpath.calibration_gate import AUDIT_VERSION, inputs_of
from reqbench.protocols.specpath.equivalence import check_family
from reqbench.protocols.specpath.family import HISTORY_FILE, Family, render_history
from reqbench.protocols.specpath.models import CORE_CONDITIONS
from reqbench.protocols.specpath.verifier import VerifierRun, run_verifier


@dataclass
class Gate:
    name: str
    passed: bool
    detail: str


@dataclass
class Audit:
    family: str
    gates: list[Gate] = field(default_factory=list)
    signatures: dict[str, dict[str, list[int] | None]] = field(default_factory=dict)
    """Fixed patch -> core history -> signature (None: the patch did not apply / verifier broke)."""
    inputs: dict[str, str] = field(default_factory=dict)
    """sha256 of every input the verdict depends on (patches, hidden tests, base tree, family.yaml)."""
    probes: list[str] = field(default_factory=list)
    verifier_seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)

    def gate(self, name: str, passed: bool, detail: str) -> None:
        self.gates.append(Gate(name, passed, detail))

    def to_dict(self) -> dict[str, Any]:
        return {"audit_version": AUDIT_VERSION, "family": self.family, "passed": self.passed,
                "gates": [{"name": g.name, "passed": g.passed, "detail": g.detail} for g in self.gates],
                "probes": self.probes, "signatures": self.signatures, "inputs": self.inputs}


@dataclass
class _Run:
    patch: str
    history: str
    applied: bool
    verifier: VerifierRun | None
    detail: str = ""


def verify_patch(family: Family, patch_text: str, history_text: str | None, scratch: Path,
                 timeout: float | None = None) -> tuple[bool, VerifierRun | None, str]:
    """Fresh base workspace + patch (+ the rendered history file) -> verifier run.

    Returns (applied, run, detail); `run` is None when the patch did not apply cleanly.
    """
    ws = materialize(family.base_repo, scratch / "ws")
    try:
        try:
            ws.apply(patch_text)
        except PatchApplyError as exc:
            return False, None, str(exc)
        if history_text is not None:
            (ws.path / HISTORY_FILE).write_text(history_text, encoding="utf-8")
        return True, run_verifier(family, ws.path, timeout), ""
    finally:
        ws.close()


def _one(family: Family, name: str, patch: str, cond: str) -> _Run:
    with tempdirs.folder("specpath-cal") as tmp:
        applied, run, detail = verify_patch(family, patch, render_history(family.histories[cond]), Path(tmp))
    return _Run(name, cond, applied, run, detail)


def calibrate_family(family: Family, workers: int | None = None) -> Audit:
    """Run every calibration gate; the audit's `passed` is the verdict (exit 1 in the CLI when False)."""
    audit = Audit(family.id, probes=list(family.probes), inputs=inputs_of(family))
    report = check_family(family)
    audit.gate("histories", report.ok, "all histories contract-equivalent" if report.ok else
               "; ".join([*report.errors, *(d.sentence() for d in report.divergences)]))
    patches = {"base": "", "reference": family.patch_text(family.spec.reference_patch)}
    missing = [a.id for a in family.atoms if a.id not in family.spec.negatives]
    for atom, rel in family.spec.negatives.items():
        patches[f"negative:{atom}"] = family.patch_text(rel)
    jobs = [(name, text, cond) for name, text in patches.items() for cond in CORE_CONDITIONS
            if cond in family.histories]
    with ThreadPoolExecutor(max_workers=workers or min(8, os.cpu_count() or 2)) as pool:
        runs = list(pool.map(lambda j: _one(family, *j), jobs))
    audit.verifier_seconds = sum(r.verifier.seconds for r in runs if r.verifier)
    for r in runs:
        audit.signatures.setdefault(r.patch, {})[r.history] = (
            r.verifier.signature(family.probes) if r.verifier else None)
    _gates(family, audit, runs, patches, missing)
    return audit


def _gates(family: Family, audit: Audit, runs: list[_Run], patches: dict[str, str],
           missing: list[str]) -> None:
    broken = [f"{r.patch} under {r.history}: {r.verifier.detail[-300:]}" for r in runs
              if r.verifier is not None and r.verifier.harness_error]
    broken += [f"reference under {r.history}: collection or import error of the hidden tests in "
               f"{r.verifier.collection_errors[:5]}" for r in runs if r.patch == "reference"
               and r.verifier is not None and r.verifier.collection_errors]
    audit.gate("verifier", not broken, "no verifier infrastructure failure" if not broken else broken[0])
    ref_runs = [r.verifier for r in runs
                if r.patch == "reference" and r.verifier and not r.verifier.harness_error]
    empty = sorted({p for v in ref_runs for p, n in v.collected.items() if n == 0}) \
        if ref_runs else list(family.probes)
    audit.gate("buckets", not empty, "every probe collects at least one test case" if not empty else
               f"empty probe bucket(s), failing closed: {', '.join(empty)}")
    sigs = audit.signatures
    ref_ok = bool(sigs.get("reference")) and all(s is not None and all(s) for s in sigs["reference"].values())
    audit.gate("reference", ref_ok, "reference passes every probe under every core history" if ref_ok else
               f"reference signatures {sigs.get('reference')}; "
               f"{next((r.detail for r in runs if r.patch == 'reference' and r.detail), '')}".strip("; "))
    base_ok = bool(sigs.get("base")) and all(s is not None and not all(s) for s in sigs["base"].values())
    audit.gate("base", base_ok, "the unmodified base fails" if base_ok else
               f"the unmodified base passes every probe: {sigs.get('base')}")
    problems = [f"atom {a!r} has no selective negative patch" for a in missing]
    index = {p: i for i, p in enumerate(family.probes)}
    for atom in family.atoms:
        name = f"negative:{atom.id}"
        if name not in patches:
            continue
        if not patches[name].strip():
            problems.append(f"{name} is empty")
            continue
        failed_apply = [r for r in runs if r.patch == name and not r.applied]
        if failed_apply:
            problems.append(f"{name} does not apply cleanly: {failed_apply[0].detail}")
            continue
        others = [p for p in family.probes if p not in atom.probes]
        for cond, sig in sigs.get(name, {}).items():
            if sig is not None and all(sig[index[p]] for p in atom.probes):
                problems.append(f"{name} passes its target probe(s) under {cond}")
                break
            hit = [p for p in others if sig is not None and not sig[index[p]]]
            if hit:
                problems.append(f"{name} is not selective: it also fails {hit} under {cond}")
                break
    audit.gate("negatives", not problems, "every negative is non-empty, applies, fails its target probe and "
               "leaves the other atoms' probes passing"
               if not problems else "; ".join(problems))
    varying = [name for name, by_hist in sigs.items() if len({tuple(s) if s else None
                                                               for s in by_hist.values()}) > 1]
    audit.gate("invariance", not varying, "fixed-patch signatures identical under all core histories"
               if not varying else "signature changes with the history for: " + ", ".join(
                   f"{n} {sigs[n]}" for n in varying))
