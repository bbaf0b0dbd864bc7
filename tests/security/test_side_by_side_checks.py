"""Red team: checks that run side by side (takeover's target and regression gates) cannot reach each
other. The hostile check runs while its neighbour is still running; it hunts for the neighbour's
snapshot (every ``reqbench-check-*`` folder it can see, /proc's other processes) to rewrite it or kill
it. The neighbour must read exactly the tree it was given and pass; the hostile check finds nothing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckResult, CheckStatus, run_check

pytestmark = pytest.mark.usefixtures("require_bwrap")

NEIGHBOUR = ("i=0; while [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done; "
             "grep -q 'a - b' calc.py && exit 0 || exit 1")  # still the submitted text after 2 s
HOSTILE = """python3 - <<'PY'
import glob, os, signal, sys, time
hits = []
for _ in range(20):
    here = os.path.dirname(os.getcwd())  # its own scratch folder; the neighbour's would be a sibling
    places = [os.path.dirname(here), "/tmp", "/dev/shm", "/var/tmp", os.environ.get("TMPDIR", "/tmp")]
    for path in [p for d in places for p in glob.glob(d + "/reqbench-check-*/workspace/calc.py")]:
        if not path.startswith(os.getcwd()):
            try:
                open(path, "w").write("def add(a, b):\\n    return a + b\\n")
                hits.append(path)
            except OSError:
                pass
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in (os.getpid(), os.getppid(), 1):
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    time.sleep(0.05)
open(os.environ["REQBENCH_OUTPUT"] + "/hits", "w").write("\\n".join(hits))
sys.exit(0 if not hits else 1)
PY"""


def test_a_hostile_check_cannot_touch_the_check_beside_it(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    results: dict[str, CheckResult] = {}

    def run(name: str, command: str) -> None:
        results[name] = run_check(Check(name=name, command=command, timeout_seconds=60), tree)

    threads = [threading.Thread(target=run, args=("neighbour", NEIGHBOUR)),
               threading.Thread(target=run, args=("hostile", HOSTILE))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results["neighbour"].status is CheckStatus.PASS, results["neighbour"]
    assert results["hostile"].status is CheckStatus.PASS, results["hostile"]  # it found nothing to rewrite
    assert (tree / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
