"""RQ4 on a delivered repository: its build, regression and criterion commands, run the way reqbench runs
every check (paper 3.1 and appendix C.2; FORMAT.md (g.2); SECURITY.md).

A delivery is the output of the agent under test, so its content is hostile. Each command it is scored
with therefore goes through core's `run_check`:

* on a **fresh copy** of the delivered tree (one per command), never the user's folder;
* in the **sandbox** (`core.sandbox.run_sandboxed`): the allow-listed environment (no provider key), no
  network, only that copy and the check's output folder writable, nothing else of the host visible;
* with the **scripts the command names restored** first (`rq4_environments.command_scripts`:
  ``scripts/build.py``, ``checks/ac001.py``), from the code environment's snapshot -- the pre-request
  repository the RQ4 instance names by path and hash (``code_environment``) -- next to core's protected
  paths (``conftest.py``, ``sitecustomize.py``, ``*.pth``, ...). A check the delivery can rewrite would
  measure nothing: restored, a rewritten ``checks/ac001.py`` runs as the environment shipped it.

Component status is core's C.2 reading of a check (exit 0 PASS, 1 FAIL, any other code, a start-up
error or a timeout HARNESS_ERROR; killed at the sandbox's memory cap: the delivery's FAIL). Without
bubblewrap none of the isolation holds: scoring a delivery is then refused (`SandboxUnavailable`, exit 2)
unless the caller passes `unsafe_no_sandbox` (``--unsafe-no-sandbox``), and the result records it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from reqbench.core import tempdirs
from reqbench.core.checks import Check, run_check
from reqbench.core.errors import AgentWorkspaceError, InputError
from reqbench.core.hashing import sha256_file
from reqbench.core.sandbox import available_isolation, require_isolation
from reqbench.protocols.takeover.rq4_delivery.archives import extract_archive
from reqbench.protocols.takeover.rq4_delivery.environments import command_line, command_scripts, tree_sha256
from reqbench.protocols.takeover.rq4_delivery.scoring import (
    COMPONENTS,
    RESULT_SCHEMA_VERSION,
    JudgeResult,
    finalize,
    judge_result_problems,
    run_outcome,
)

OUTPUT_TAIL = 2000
"""Characters of a command's output kept with its status."""


@contextlib.contextmanager
def environment_snapshot(record: dict[str, Any], environment: Path) -> Iterator[Path]:
    """The pre-request repository a registry record names (``code_environment.archive_path``, relative to
    the project folder), found in `environment` -- the project folder, its ``targets/`` folder or the
    target's own environment folder -- and checked against the recorded hashes. A folder is used as it is
    (only read); an archive is extracted (`release_archive` rules) into a temporary folder removed
    afterwards. `InputError` naming the folder and the target when it is missing or differs."""
    identity, item = record["code_environment"], f"target {record['target_id']}"
    rel = PurePosixPath(str(identity["archive_path"]))
    found = [c for c in (environment / rel, environment / rel.parent.name / rel.name, environment / rel.name)
             if c.exists()]
    if not found:
        raise InputError(f"holds no code environment {rel.parent.name}/{rel.name} (the RQ4 instance's "
                         "code_environment.archive_path)", file=str(environment), item=item)
    source = found[0]
    if source.is_dir():
        _same_hash("tree_sha256", identity.get("tree_sha256"), tree_sha256(source), source, item)
        yield source
        return
    _same_hash("archive_sha256", identity.get("archive_sha256"), sha256_file(source), source, item)
    with tempdirs.folder("rq4-snapshot") as tmp:
        checked = extract_archive(source, Path(tmp) / "repository")
        _same_hash("tree_sha256", identity.get("tree_sha256"), checked.tree_sha256, source, item)
        yield Path(tmp) / "repository"


def _same_hash(key: str, recorded: Any, actual: str | None, source: Path, item: str) -> None:
    if recorded is not None and str(recorded).lower() != actual:
        raise InputError(f"is not the code environment the RQ4 instance names: its {key} is {actual}, the "
                         f"instance records {recorded}", file=str(source), item=item)


def run_component(name: str, argv: Sequence[str], repository: Path, snapshot: Path,
                  timeout: float = 600.0) -> dict[str, Any]:
    """Run one build, regression or criterion command on a fresh sandboxed copy of `repository`, the
    scripts it names restored from `snapshot`. Returns {status, returncode, output (tail), restored}."""
    try:
        check = Check(name=name, command=command_line(list(argv)), timeout_seconds=timeout,
                      protected=command_scripts(list(argv)))
    except ValidationError as exc:  # the environment names a command reqbench will not run
        return {"status": "HARNESS_ERROR", "returncode": None, "output": str(exc)[:OUTPUT_TAIL], "restored": []}
    try:
        result = run_check(check, repository, base=snapshot)
    except AgentWorkspaceError as exc:  # the delivered tree itself cannot be checked: the delivery's failure
        return {"status": "FAIL", "returncode": None, "output": f"delivered repository: {exc}", "restored": []}
    output = "\n".join(filter(None, [result.detail, (result.stdout_tail + result.stderr_tail)[-OUTPUT_TAIL:]]))
    return {"status": result.status.value, "returncode": result.exit_code, "output": output,
            "restored": list(result.protected_touched)}


def exact_judge(target_id: str, criteria: Sequence[dict[str, Any]], checks: dict[str, list[str]],
                repository: Path, snapshot: Path, timeout: float = 600.0) -> dict[str, Any]:
    """The deterministic judge: each criterion's ``criterion_checks`` command (`run_component`; exit 0
    PASS, 1 FAIL, anything else UNSURE); a criterion without a check is UNSURE."""
    out = []
    for c in criteria:
        cid = c["criterion_id"]
        argv = checks.get(cid)
        if argv is None:
            out.append({"criterion_id": cid, "verdict": "UNSURE", "evidence": [
                {"operation": "look up a deterministic check", "observation": "no check for this criterion",
                 "artifact": None}]})
            continue
        run = run_component(cid, argv, repository, snapshot, timeout)
        verdict = {"PASS": "PASS", "FAIL": "FAIL"}.get(run["status"], "UNSURE")
        shown = run["output"].strip()
        observation = f"exit code {run['returncode']}" + (f": {shown}" if shown else "")
        out.append({"criterion_id": cid, "verdict": verdict, "evidence": [
            {"operation": " ".join(argv), "observation": observation[:1000], "artifact": None}]})
    n_pass = sum(c["verdict"] == "PASS" for c in out)
    return {"schema_version": RESULT_SCHEMA_VERSION, "target_id": target_id, "criteria": out,
            "judge_summary": f"exact judge: {n_pass} of {len(out)} criteria passed their checks"}


def score_rq4_target(
    instance: dict[str, Any],
    condition: str,
    phase_a_decision: str | None,
    repository: Path | None,
    *,
    environment: Path | None = None,
    judge_result: Any = None,
    judge_workspace: Path | None = None,
    timeout: float = 600.0,
    unsafe_no_sandbox: bool = False,
    **identity: Any,
) -> dict[str, Any]:
    """One target's RQ4 under `condition`: eligibility, Phase-B gate, components, judge, finalizer.

    `repository` is the delivered project (None: no submission) and `environment` where its code
    environment lies (`environment_snapshot`; required with a repository). The judge is `judge_result` (a
    parsed ``rq4-agent-judge-result-v1`` from an agent judge; checked against the criteria and, with
    `judge_workspace`, its artifacts) or, when None, the exact judge over ``criterion_checks``. Returns
    ``{target_id, condition, eligible, exclusion_reason, evaluation, outcome, problems, isolation,
    unsafe_no_sandbox, restored}`` (`unsafe_no_sandbox`: the commands ran without bubblewrap; `restored`:
    per build/regression command, the files it names that the delivery had changed).
    """
    if repository is not None and environment is None:
        raise InputError("scoring a delivered repository needs its code environment (the pre-request "
                         "repository whose scripts and checks are restored before they run)",
                         item="--code-environment")
    gold = instance["construction_gold"]
    record = gold["registry_target"]
    elig = record["condition_eligibility"][condition]
    out: dict[str, Any] = {"target_id": record["target_id"], "condition": condition,
                           "eligible": elig["rq4_eligible"], "exclusion_reason": elig["exclusion_reason"],
                           "evaluation": None, "outcome": None, "problems": []}
    if not elig["rq4_eligible"]:
        return out
    if phase_a_decision != "ACT" or repository is None or environment is None:
        out["outcome"] = run_outcome(None, phase_a_decision=phase_a_decision,
                                     phase_b_agent_failed=repository is None)
        return out
    require_isolation("the delivered repository's commands", "they could read the harness's secrets and "
                      "write anywhere the harness can", item="--repository", unsafe_no_sandbox=unsafe_no_sandbox)
    isolation = available_isolation()
    out.update(isolation=isolation, unsafe_no_sandbox=isolation != "bwrap", restored={})
    ids = {"project_id": record["project_id"], "target_id": record["target_id"], "condition": condition,
           **identity}
    with environment_snapshot(record, environment) as snapshot:
        components = {}
        for name in COMPONENTS:
            argv = record["evaluation_commands"].get(name)
            run = run_component(name, argv, repository, snapshot, timeout) if argv else None
            components[name] = run["status"] if run else "HARNESS_ERROR"
            out["restored"][name] = run["restored"] if run else []
        verdicts: dict[str, Any] | None = None
        if all(components[c] == "PASS" for c in COMPONENTS):
            criteria = record["acceptance_criteria"]
            if judge_result is None:
                verdicts = exact_judge(record["target_id"], criteria, gold.get("criterion_checks") or {},
                                       repository, snapshot, timeout)
                ids.setdefault("judge_config_id", "exact")
            else:
                problems = judge_result_problems(judge_result, record["target_id"],
                                                 [c["criterion_id"] for c in criteria], judge_workspace)
                out["problems"] = problems
                verdicts = None if problems else JudgeResult.model_validate(judge_result).model_dump(mode="json")
                ids.setdefault("judge_config_id", "agent-judge-result")
    evaluation = finalize(components, verdicts, **ids)
    out["evaluation"] = evaluation
    out["outcome"] = run_outcome(evaluation)
    return out
