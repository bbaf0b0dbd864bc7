"""The guard's evidence: parsing the records the harness-side pytest plugin wrote to its pipe, and the rule
that maps them (and how the process ended) to a status. See the package docstring for the rules."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from reqbench.core.checks.models import CHANNEL_CAP_BYTES, CheckStatus
from reqbench.core.sandbox import ProcessResult


@dataclass
class GuardEvidence:
    """The guard records of one session, as read from the channel."""

    started: bool = False
    args_read: bool = False
    conftests: bool = False
    configured: bool = False
    finish_status: int | None = None
    phases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """node id -> [(when, outcome)] in arrival order."""
    items: list[str] = field(default_factory=list)
    collect_errors: list[str] = field(default_factory=list)
    tampering: list[str] = field(default_factory=list)
    """Why the channel cannot be trusted (empty when it can)."""

    def tests(self) -> dict[str, bool]:
        """node id -> passed: every record for it passed, and a call record exists."""
        ids = list(dict.fromkeys([*self.items, *self.phases]))
        return {i: any(w == "call" for w, _ in self.phases.get(i, ()))
                and all(o == "passed" for _, o in self.phases.get(i, ())) for i in ids}

    def skipped(self) -> list[str]:
        """Node ids with a skipped phase (reported; a skipped test is never passing evidence)."""
        return sorted(i for i, phases in self.phases.items() if any(o == "skipped" for _, o in phases))


def parse_guard_records(data: bytes, token: str, *, overflow: bool = False) -> GuardEvidence:
    """Read the guard's JSON lines. Any line that is not a well-formed record with this run's token, a
    second start/args/finish, a record after finish or a ``tampered`` record marks the channel as
    tampered: only the guard and the code it runs with can write to the pipe, and the guard never
    writes such lines."""
    ev = GuardEvidence()
    if overflow:
        ev.tampering.append(f"the evidence channel exceeded {CHANNEL_CAP_BYTES} bytes")
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            ev.tampering.append("an unreadable line on the evidence channel")
            continue
        if not isinstance(rec, dict) or rec.get("t") != token or not token:
            ev.tampering.append("a record without this run's token on the evidence channel")
            continue
        event = rec.get("e")
        if ev.finish_status is not None:
            ev.tampering.append(f"a {event!r} record after the session finished")
            continue
        if event in ("start", "args", "conftests", "configured"):
            flag = {"start": "started", "args": "args_read"}.get(event, str(event))
            if getattr(ev, flag):
                ev.tampering.append(f"a second {event!r} record")
            setattr(ev, flag, True)
            if event == "start" and rec.get("safe_path") is False:
                ev.tampering.append("the runner did not start in safe-path mode")
        elif event == "finish" and isinstance(rec.get("status"), int):
            ev.finish_status = rec["status"]
        elif event == "phase" and isinstance(rec.get("id"), str):
            ev.phases.setdefault(rec["id"], []).append((str(rec.get("when")), str(rec.get("outcome"))))
        elif event == "item" and isinstance(rec.get("id"), str):
            ev.items.append(rec["id"])
        elif event == "collect_error":
            ev.collect_errors.append(str(rec.get("id", "")))
        elif event == "tampered":
            ev.tampering.append(f"pytest's report machinery was replaced ({rec.get('what')})")
        else:
            ev.tampering.append(f"an unknown record {event!r}")
    return ev


def expected_probes(tests: dict[str, bool], expected: list[str]) -> dict[str, bool]:
    """Expected id -> passed: at least one reported case (the id itself or ``id[...]``), all passed."""
    out: dict[str, bool] = {}
    for e in expected:
        cases = [ok for node, ok in tests.items() if node == e or node.startswith(e + "[")]
        out[e] = bool(cases) and all(cases)
    return out


def judge_pytest(ev: GuardEvidence, proc: ProcessResult, expected: list[str],
                 timeout: float) -> tuple[CheckStatus, dict[str, bool] | None, str]:
    """`_judge`, with the memory cap named in the detail when the kernel killed part of the tree for it
    (the status does not change: killed after the runner started, the submission's code was running)."""
    status, probes, detail = _judge(ev, proc, expected, timeout)
    note = proc.memory_note()
    return status, probes, f"{detail}; {note}" if note and note not in detail else detail


def _judge(ev: GuardEvidence, proc: ProcessResult, expected: list[str],
           timeout: float) -> tuple[CheckStatus, dict[str, bool] | None, str]:
    """Status, probes and detail of a ``{pytest}`` check from the guard's records (positive evidence).

    * FAIL at a timeout after the ``start`` record: the submission's code was running and did not finish
      within the fixed budget (SpecPath counts a verifier timeout as a fixed-budget failure; a loop in the
      submission must not become a pending row the agent can hide behind).
    * HARNESS_ERROR: a timeout before the runner started, or a start-up failure (C.2); no ``start`` record
      (the runner never booted);
      exit 4 (usage error) without a finished session, either before the ``args`` record (before any
      submission code could run) or between ``conftests`` and ``configured`` (pytest's full parse of
      the harness's command line failed).
    * FAIL with every probe false: the channel was tampered with, or the session never finished (the
      process ended early -- ``os._exit``, a crash, a killed parent, the kernel's kill at the memory
      cap -- after submission code could run).
    * FAIL: a finished session with exit status other than 0 (failures, collection errors (2), internal
      error (3), usage error after start-up (4), no tests (5)), any collection error, no tests, any test
      without a passing call or with a failing/skipped phase, a missing or failing expected test, or a
      process whose exit code disagrees with a passing session (something ran after the session).
    * PASS otherwise.
    """
    code = proc.exit_code
    if proc.timed_out:
        if ev.started:
            return CheckStatus.FAIL, {i: False for i in [*ev.tests(), *expected]}, (
                f"timed out after {timeout:g}s while the submission's tests ran (fixed-budget failure)")
        return CheckStatus.HARNESS_ERROR, None, f"timed out after {timeout:g}s before the test runner started"
    if proc.start_error:
        return CheckStatus.HARNESS_ERROR, None, proc.start_error
    if not ev.started:
        return CheckStatus.HARNESS_ERROR, None, f"the test runner never started (exit code {code})"
    tests = ev.tests()
    zeros = {i: False for i in [*tests, *expected]}
    if ev.tampering:
        return CheckStatus.FAIL, zeros, "evidence channel tampered with: " + "; ".join(
            dict.fromkeys(ev.tampering))
    if ev.finish_status is None:
        if code == 4 and (not ev.args_read or (ev.conftests and not ev.configured)):
            return CheckStatus.HARNESS_ERROR, None, "pytest rejected the check's command line (exit 4)"
        why = proc.memory_note() or "the submission's code ended it"
        return CheckStatus.FAIL, zeros, (f"the test process ended before the pytest session finished "
                                         f"(exit code {code}): {why}")
    probes = dict(tests)
    probes.update({e: ok for e, ok in expected_probes(tests, expected).items() if e not in tests})
    problems: list[str] = []
    if ev.finish_status != 0:
        problems.append(f"pytest exit status {ev.finish_status}")
    if ev.collect_errors:
        problems.append(f"collection errors in {sorted(set(ev.collect_errors))[:5]}")
    if not tests:
        problems.append("no tests ran")
    failed = sorted(i for i, ok in tests.items() if not ok)
    if failed:
        problems.append(f"{len(failed)} test(s) did not pass, e.g. {failed[:3]}")
    missing = [e for e, ok in expected_probes(tests, expected).items() if not ok and e not in failed]
    if missing:
        problems.append(f"expected tests missing or failing: {missing[:5]}")
    if not problems and code != 0:
        problems.append(f"the process exited {code} after a passing session")
    if problems:
        return CheckStatus.FAIL, probes, "; ".join(problems)
    return CheckStatus.PASS, probes, f"{len(tests)} test(s) passed"


