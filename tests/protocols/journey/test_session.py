"""The session loop with the deterministic simulator (B.1): endings, determinism, regressions, isolation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentResult, AgentStatus, Budget, Usage
from reqbench.core.agents.control_sessions import ReferenceSession
from reqbench.protocols.journey.metrics import final_f2p, final_p2p, proc_f2p, session_metrics
from reqbench.protocols.journey.models import Instance, load_instance
from reqbench.protocols.journey.personas import PRESET_NAMES
from reqbench.protocols.journey.session import SessionLimits, run_single_shot

from .sessions import as_step_session, control, conversation, reference_session, run


@pytest.mark.parametrize("persona", PRESET_NAMES)
def test_reference_assistant_reaches_full_marks_for_every_persona(calc_instance: Path, tmp_path: Path,
                                                                  persona: str) -> None:
    inst, rec = run(calc_instance, persona, control("reference"), tmp_path)
    assert rec.end_reason == "all_resolved"
    assert (proc_f2p(rec, inst), final_f2p(rec, inst), final_p2p(rec, inst)) == (1.0, 1.0, 1.0)


def test_null_assistant_drains_confidence_to_zero_which_ends_the_session(calc_instance: Path,
                                                                         tmp_path: Path) -> None:
    inst, rec = run(calc_instance, "non-coder", control("null"), tmp_path, max_turns=30)
    assert rec.end_reason == "confidence_zero"
    # 60 - 10 per stalled turn; the turn spent on the pivoted goal (T2 first asked as percentages) is exempt
    assert [t.confidence_after for t in rec.turns] == [50, 40, 30, 20, 20, 10, 0]
    assert len(rec.turns) == 7 < 30
    assert final_f2p(rec, inst) == 0.0 and final_p2p(rec, inst) == 1.0


def test_shared_turn_limit_ends_the_session(calc_instance: Path, tmp_path: Path) -> None:
    _, rec = run(calc_instance, "software-architect", control("null"), tmp_path, max_turns=2)
    assert rec.end_reason == "turn_limit" and len(rec.turns) == 2


def test_same_seed_gives_the_same_conversation(calc_instance: Path, tmp_path: Path) -> None:
    convs = [conversation(run(calc_instance, "product-manager", control("reference"), tmp_path / str(i),
                              seed=seed)[1]) for i, seed in enumerate([7, 7])]
    assert convs[0] == convs[1]
    # evolving goals: the pivot is a seeded coin flip, so some other seed tells a different story
    others = {str(conversation(run(calc_instance, "product-manager", control("reference"),
                                   tmp_path / f"s{seed}", seed=seed)[1])) for seed in range(6)}
    assert len(others) > 1


class _Regressing(ReferenceSession):
    """The reference assistant that, on turn `at`, also breaks `add` (a P2P behaviour)."""

    def __init__(self, inst: Instance, ws: Path, disclosed: Callable[[], list[str]], at: int) -> None:
        base = reference_session(inst, ws, disclosed)
        super().__init__(base.workspace, base.steps, base.disclosed)
        self.at, self.turn = at, 0

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        result = super().send(user_message, budget)
        self.turn += 1
        if self.turn == self.at:
            path = self.workspace / "calc.py"
            path.write_text(path.read_text().replace("return a + b", "return a - b"))
        return result


def test_regression_introduced_mid_session_lowers_final_p2p(calc_instance: Path, tmp_path: Path) -> None:
    def factory(inst, ws, sim):  # type: ignore[no-untyped-def]
        return _Regressing(inst, ws, lambda: list(sim.state.disclosed), at=2)

    inst, rec = run(calc_instance, "software-architect", factory, tmp_path)
    assert final_f2p(rec, inst) == 1.0
    assert final_p2p(rec, inst) == 0.0
    node = "tests_hidden/test_base.py::test_add"
    second = rec.turns[1]
    assert "-    return a + b" in second.diff
    assert second.user_notes["regressions_seen"] == [node]
    # a reviewing architect does not accept T3 while it breaks a P2P node, and says which one
    assert second.statuses_after["T3"] == "active"
    # T3's tests now pass (+8 progress) but the regression costs 20
    assert second.confidence_after == rec.turns[0].confidence_after + 8 - 20
    assert node in rec.turns[2].user_message


class _Spy:
    """An assistant that records everything it could see: messages and its whole workspace."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.messages: list[str] = []
        self.seen_files: set[str] = set()
        self.seen_text: list[str] = []

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        self.messages.append(user_message)
        for path in self.workspace.rglob("*"):
            self.seen_files.add(path.relative_to(self.workspace).as_posix())
            if path.is_file():
                self.seen_text.append(path.read_text(errors="replace"))
        return AgentResult(AgentStatus.COMPLETED, usage=Usage(cost_usd=0.0), reply="Working on it.")

    def close(self) -> None:
        return None


def test_hidden_tests_and_checklist_never_reach_the_assistant(calc_instance: Path, tmp_path: Path) -> None:
    spy: list[_Spy] = []
    disclosed_at_send: list[set[str]] = []

    def factory(inst, ws, sim):  # type: ignore[no-untyped-def]
        s = _Spy(ws)
        orig = s.send

        def send(msg: str, budget: Budget) -> AgentResult:
            disclosed_at_send.append(set(sim.state.disclosed))
            return orig(msg, budget)

        s.send = send  # type: ignore[method-assign]
        spy.append(s)
        return s

    inst, rec = run(calc_instance, "new-developer", factory, tmp_path)
    s = spy[0]
    assert s.seen_files == {"calc.py"}
    text = "\n".join(s.seen_text)
    assert "def test_" not in text and "tests_hidden" not in text
    for sub in inst.subtasks:
        assert sub.request not in text
    # an undisclosed subtask's hidden request never appears in a message the assistant received
    for msg, known in zip(s.messages, disclosed_at_send, strict=True):
        for sub in inst.subtasks:
            if sub.id not in known:
                assert sub.request not in msg and sub.plain not in msg
    ws = (tmp_path / "workspace").resolve()
    assert not ws.is_relative_to(inst.root.resolve()) and not inst.root.resolve().is_relative_to(ws)
    assert not (tmp_path / "snapshots").resolve().is_relative_to(ws)


def test_single_shot_mode_scores_only_the_final_state(calc_instance: Path, tmp_path: Path) -> None:
    inst = load_instance(calc_instance)
    from reqbench.protocols.journey.env import make_workspace

    ws = make_workspace(inst.repo_dir, tmp_path / "workspace")
    sess = reference_session(inst, ws, lambda: [s.id for s in inst.subtasks])
    rec = run_single_shot(inst, as_step_session(sess), ws, tmp_path, SessionLimits())
    m = session_metrics(rec, inst)
    assert (m.turns, m.proc_f2p, m.final_f2p, m.final_p2p) == (1, None, 1.0, 1.0)
    assert "Add calc.div(a, b)" in rec.turns[0].user_message and "## division" in rec.turns[0].user_message


def test_workspace_files_cannot_spoof_the_hidden_tests(calc_instance: Path, tmp_path: Path) -> None:
    from reqbench.protocols.journey.env import make_workspace
    from reqbench.protocols.journey.online import run_hidden_tests

    inst = load_instance(calc_instance)
    ws = make_workspace(inst.repo_dir, tmp_path / "workspace")
    (ws / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    out = yield\n    out.get_result().outcome = 'passed'\n")
    (ws / "pytest.ini").write_text("[pytest]\naddopts = -p no:junitxml\n")
    (ws / "tests_hidden").mkdir()
    (ws / "tests_hidden" / "test_ops.py").write_text("def test_sub():\n    pass\n")
    run = run_hidden_tests(inst, ws)
    assert run.failing(inst.whole_f2p) == inst.whole_f2p
    assert run.passed("tests_hidden/test_base.py::test_add")
