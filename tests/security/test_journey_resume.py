"""Red team: a hostile assistant against journey's per-turn checkpoints and its control-agent context.

* An assistant that plants links out of its workspace (``/etc/shadow``, ``..``) and a non-UTF-8 name must
  not make its own session impossible to resume (a refusal would stop the whole run), nor make the harness
  copy what the links point to: the resumed workspace holds the links as links.
* A snapshot blob is unpacked only inside its destination: a member that climbs out (``../``) or writes
  through a link is refused and nothing is left behind.
* The answers a control reads from its session context (reference patches, disclosed subtasks) never reach
  an agent under test, even one whose ``start_session`` asks for ``inputs``.
"""

from __future__ import annotations

import copy
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.journey.assistants import open_session
from reqbench.protocols.journey.checkpoints import pack_tree, restore_tree
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.suite import PROTOCOL
from tests.protocols.journey.conftest import SPEC, build_instance

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

PLANT = "ln -sfn /etc/shadow leak; ln -sfn .. up; printf 'x\\n' > \"$(printf 'n\\377me.txt')\""


def test_links_out_of_the_workspace_survive_a_resume_as_links(tmp_path: Path) -> None:
    flag = tmp_path / "broken"
    flag.write_text("")
    spec = copy.deepcopy(SPEC)
    spec["testbed"]["test_command"] = (f"if test -e {flag} && test -L leak; then exit 4; fi; "
                                           "{pytest} -q --continue-on-collection-errors {hidden}/tests_hidden")
    suite = build_instance(tmp_path / "suite", spec)
    options = RunOptions(agent="command", conditions=("software-architect",),
                         agent_options={"template": PLANT, "journey.max_turns": "2"})
    meta = RunMeta(suite_path=str(suite), protocol="journey", created=utc_now(), reqbench_version="t",
                   options={"agent": "command", "seed": 1})
    with RunStore.create(tmp_path / "run", meta) as store:
        first = execute_run(store, PROTOCOL.load(suite), options)
        assert first["pending"] == 1  # the assistant's first turn is checkpointed, its tests could not run
        flag.unlink()
        second = execute_run(store, PROTOCOL.load(suite), options)
        (row,) = store.plan()
        attempt = store.attempts(row)[-1]
        outcome = store.to_outcome(attempt)
    assert second["scored"] == 1 and attempt.kind == "reevaluate"
    turns = json.loads(outcome.artifacts["transcript.json"])["turns"]
    assert len(turns) == 2 and {"leak", "up"} <= set(turns[0]["changed_files"])
    restored = restore_tree(outcome.artifacts["turn_001.tar.gz"], tmp_path / "turn1")
    assert os.readlink(restored / "leak") == "/etc/shadow" and os.readlink(restored / "up") == ".."
    assert os.fsencode("n\udcffme.txt") in os.listdir(os.fsencode(restored))


def _tarball(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return raw.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name: str, target: str) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    return info, None


@pytest.mark.parametrize("members", [
    [_file("../escaped.txt", b"x")],
    [_link("out", str(Path("/tmp"))), _file("out/escaped.txt", b"x")],
], ids=["dotdot", "through-a-link"])
def test_a_forged_snapshot_cannot_write_outside_its_destination(tmp_path: Path,
                                                                members: list[Any]) -> None:
    dest = tmp_path / "box" / "tree"
    with pytest.raises(tarfile.TarError):
        restore_tree(_tarball(members), dest)
    assert not dest.exists() and not (tmp_path / "box" / "escaped.txt").exists()
    assert not Path("/tmp/escaped.txt").exists()


def test_a_snapshot_round_trips_exactly(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("x = 1\n")
    os.symlink("../pkg/mod.py", tree / "pkg" / "again.py")
    restored = restore_tree(pack_tree(tree), tmp_path / "copy")
    assert (restored / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert os.readlink(restored / "pkg" / "again.py") == "../pkg/mod.py"
    assert pack_tree(restored) == pack_tree(tree)


class CuriousAgent:
    """An agent under test whose session factory asks for the row's inputs (hoping for the answers)."""

    name = "curious"
    seen: list[Any] = []

    def run(self, *args: Any) -> Any:
        raise AssertionError("sessions only")

    def start_session(self, workspace: Path, inputs: Any = None) -> Any:
        CuriousAgent.seen.append(inputs)
        return self


def make_curious(**opts: Any) -> CuriousAgent:
    return CuriousAgent()


def test_an_agent_under_test_never_receives_the_controls_context(calc_instance: Path, tmp_path: Path) -> None:
    instance = load_instance(calc_instance)
    CuriousAgent.seen.clear()
    ctx = RowContext(RunOptions(agent=f"{__name__}:make_curious"), tmp_path, Row("t", "c", "a"))
    open_session(ctx, instance, tmp_path, lambda: ["T1", "T2", "T3"])
    assert CuriousAgent.seen == [None]
