"""Red team (harbor): the agent writes ``/logs/verifier/reward.txt`` and ``reward.json`` = 1 itself, plants
them (and a ``tests/test.sh`` that would write 1) in its workspace, and leaves a process behind that keeps
rewriting them. The verifier runs after the agent, on a copy of the submission, with a fresh
``/logs/verifier`` that only its own sandbox sees and the task's tests read-only at ``/tests``: the row
still earns 0. The same task solved honestly earns 1, so the test can tell the two apart."""

from __future__ import annotations

from pathlib import Path

from reqbench.cli.generic_run import run_suite
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from tests.protocols.harbor.tasks import single_step, write

FORGE = """
mkdir -p /logs/verifier logs/verifier tests 2>/dev/null
for d in /logs/verifier logs/verifier .; do
  echo 1 > $d/reward.txt 2>/dev/null; echo '{"reward": 1}' > $d/reward.json 2>/dev/null
done
printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n' > tests/test.sh
(while true; do echo 1 > /logs/verifier/reward.txt 2>/dev/null; sleep 0.05; done) &
printf 'hello nobody' > greeting.txt
"""
HONEST = "printf 'hello harbor' > greeting.txt"

# The verifier's own view: /tests read-only, /logs/verifier writable and empty at the start.
VIEW_TEST = """#!/bin/bash
ok=1
touch /tests/planted 2>/dev/null && ok=0
[ -z "$(ls -A /logs/verifier | grep -v test-stdout)" ] || ok=0
[ "$(cat greeting.txt 2>/dev/null)" = "hello harbor" ] || ok=0
echo $ok > /logs/verifier/reward.txt
"""


def _reward(tmp_path: Path, template: str, name: str) -> float:
    task = single_step(tmp_path / f"task-{name}")
    write(task, {"tests/test.sh": VIEW_TEST})
    import_tasks([task], tmp_path / f"suite-{name}")
    store, _ = run_suite(tmp_path / f"suite-{name}", RunOptions(agent="command", agent_options={"template": template}),
                         tmp_path / f"run-{name}", resume=False, quiet=True)
    with store:
        (_row, outcome), = list(store.outcomes())
    return HarborResult.of(outcome.result).reward


def test_an_agent_that_writes_its_own_reward_file_still_gets_zero(tmp_path: Path, require_bwrap: None) -> None:
    assert _reward(tmp_path, FORGE, "forged") == 0.0


def test_the_same_task_solved_honestly_earns_full_reward(tmp_path: Path, require_bwrap: None) -> None:
    assert _reward(tmp_path, HONEST, "honest") == 1.0


def test_a_forged_reward_is_zero_even_when_the_submission_is_right(tmp_path: Path, require_bwrap: None) -> None:
    """The greeting is right, but so is everything the forger plants: the verifier's view stays clean."""
    assert _reward(tmp_path, FORGE.replace("hello nobody", "hello harbor"), "both") == 1.0


def test_a_non_finite_empty_or_linked_reward_scores_zero_with_the_reason(tmp_path: Path, require_bwrap: None) -> None:
    """What the verifier leaves is read as Harbor reads it: NaN, inf, an empty file or a link to a file
    holding a number is no reward (the row scores 0 and says why), never a number that poisons the mean."""
    cases = {"nan": "echo nan > /logs/verifier/reward.txt", "inf": "echo '{\"reward\": 1e309}' > "
             "/logs/verifier/reward.json", "empty": ": > /logs/verifier/reward.txt",
             "link": "echo 1 > /tmp/one; ln -s /tmp/one /logs/verifier/reward.txt"}
    tasks = []
    for name, line in cases.items():
        task = single_step(tmp_path / name)
        write(task, {"tests/test.sh": f"#!/bin/bash\n{line}\n"})
        tasks.append(task)
    import_tasks(tasks, tmp_path / "suite")
    store, _ = run_suite(tmp_path / "suite", RunOptions(agent="reference"), tmp_path / "run", resume=False, quiet=True)
    with store:
        results = {row.task_id: HarborResult.of(o.result) for row, o in store.outcomes()}
    assert {k: r.reward for k, r in results.items()} == dict.fromkeys(cases, 0.0)
    errors = {k: r.steps[0].error or "" for k, r in results.items()}
    assert "non-finite" in errors["nan"] and "non-finite" in errors["inf"]
    assert "empty" in errors["empty"] and "regular file" in errors["link"]
