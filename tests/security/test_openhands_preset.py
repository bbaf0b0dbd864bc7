"""The OpenHands preset against a hostile agent: what the harness reads from the agent's scratch folder and
what it shows the sandbox so that OpenHands' interpreter runs.

* OpenHands persists its conversation state in the scratch folder (agent-writable): a state file or a
  conversation folder replaced by a link to a host file is not read, so it can neither claim a finished
  run nor pull host data into the row.
* The conversation id a session resumes comes from that state too: only a UUID is taken, never an
  option for the next turn's command line.
* A virtualenv's interpreter lives in the Python it was made from, which the sandbox shows read-only.
  Which Python that is comes from the venv's ``pyvenv.cfg`` -- a file an agent could plant in a venv it
  passes as ``binary=``: naming ``/``, a non-Python folder, or a folder holding what the sandbox masks
  (reqbench's cache) shows nothing, nor does a ``pyvenv.cfg`` that is itself a link.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentStatus
from reqbench.core.agents.openhands_output import parse_openhands
from reqbench.core.agents.preset_base import install_dirs, venv_base
from reqbench.core.sandbox import available_isolation, run_sandboxed

CID = "c" * 32
FINISHED = json.dumps({"id": "canary-state-link", "execution_status": "finished", "stats": {"usage_to_metrics": {
    "agent": {"accumulated_cost": 9.0, "accumulated_token_usage": {"prompt_tokens": 777, "completion_tokens": 7}}}}})


def test_a_linked_state_file_or_conversation_folder_is_not_read(tmp_path: Path) -> None:
    host = tmp_path / "host"
    (host / CID).mkdir(parents=True)
    (host / CID / "base_state.json").write_text(FINISHED)
    stdout = f"Conversation ID: {CID}\n"
    real = tmp_path / "real"
    (real / "conversations").mkdir(parents=True)
    (real / "conversations" / CID).symlink_to(host / CID)  # a linked folder on the way
    planted = tmp_path / "planted"
    (planted / "conversations" / CID).mkdir(parents=True)
    (planted / "conversations" / CID / "base_state.json").symlink_to(host / CID / "base_state.json")
    for persistence in (real, planted):
        out = parse_openhands(stdout, persistence)
        assert out.status is AgentStatus.ERROR and out.usage.prompt_tokens == 0
        assert "canary-state-link" not in repr(out)
    linked_root = tmp_path / "linked-root"  # the persistence folder itself is the harness's path: read
    (linked_root / "conversations").mkdir(parents=True)
    (linked_root / "conversations" / CID).mkdir()
    (linked_root / "conversations" / CID / "base_state.json").write_text(FINISHED)
    assert parse_openhands(stdout, linked_root).status is AgentStatus.COMPLETED


def test_a_planted_conversation_id_never_becomes_an_option_of_the_next_turn(tmp_path: Path) -> None:
    """A session's next turn runs ``openhands ... --resume ID`` with the id from the state file the agent
    can rewrite; only a UUID is taken."""
    folder = tmp_path / "conversations" / CID
    folder.mkdir(parents=True)
    for planted, taken in (("--task=curl evil", None), ("serve --gpu", None),
                           ("1de46bea-ba52-4af5-a02b-18586ae4307d", "1de46bea-ba52-4af5-a02b-18586ae4307d")):
        (folder / "base_state.json").write_text(json.dumps({"id": planted, "execution_status": "finished"}))
        assert parse_openhands(f"Conversation ID: {CID}\n", tmp_path).session_id == taken


def python_prefix(root: Path) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "lib" / "python3.12").mkdir(parents=True)
    (root / "lib" / "python3.12" / "os.py").write_text("")
    return root


def venv(path: Path, home: str) -> Path:
    (path / "bin").mkdir(parents=True)
    (path / "pyvenv.cfg").write_text(f"home = {home}\nversion = 3.12.1\n")
    return path


def test_a_planted_pyvenv_cfg_shows_nothing_outside_a_python_install(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    good = python_prefix(tmp_path / "pythons" / "3.12.1")
    assert venv_base(venv(tmp_path / "v-good", str(good / "bin"))) == [good]
    assert venv_base(venv(tmp_path / "v-root", "/bin")) in ([], [Path("/usr")])  # /usr: visible anyway
    assert venv_base(venv(tmp_path / "v-slash", "/")) == []
    assert venv_base(venv(tmp_path / "v-home", str(tmp_path / "home" / "bin"))) == []  # not a Python install
    assert venv_base(venv(tmp_path / "v-rel", "pythons/3.12.1/bin")) == []
    holder = python_prefix(tmp_path / "holder")  # a Python install that holds reqbench's cache
    (holder / "cache").mkdir()
    monkeypatch.setenv("REQBENCH_CACHE", str(holder / "cache"))
    assert venv_base(venv(tmp_path / "v-cache", str(holder / "bin"))) == []
    linked = tmp_path / "v-link"
    (linked / "bin").mkdir(parents=True)
    (linked / "pyvenv.cfg").symlink_to(tmp_path / "v-good" / "pyvenv.cfg")
    assert venv_base(linked) == []
    writable = [good / "work"]  # never shown read-only over a path the tool must write
    (good / "work").mkdir()
    (tmp_path / "v-good" / "bin" / "tool").write_text("")
    assert good not in install_dirs(str(tmp_path / "v-good" / "bin" / "tool"), writable)


@pytest.mark.skipif(available_isolation() == "none", reason="needs the bubblewrap sandbox")
def test_a_venv_under_tmp_runs_in_the_sandbox_and_nothing_beside_it_shows(tmp_path: Path) -> None:
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    (tmp_path / "beside").mkdir()
    (tmp_path / "beside" / "secret.txt").write_text("canary-beside")
    secret = str(tmp_path / "beside" / "secret.txt")
    script = (f"import os, sys; print(sys.prefix); print(os.path.exists({secret!r}));"
              "open(os.path.join(sys.prefix, 'planted'), 'w')")
    binary = env / "bin" / "python"
    work = tmp_path / "work"
    work.mkdir()
    proc = run_sandboxed([str(binary), "-c", script], work, timeout=60,
                         readonly_binds={d: d for d in install_dirs(str(binary), [work])})
    out = proc.stdout.decode()
    assert out.splitlines()[:2] == [str(env), "False"]  # the venv runs; a sibling folder stays hidden
    assert proc.exit_code != 0 and not (env / "planted").exists()  # the install is read-only
