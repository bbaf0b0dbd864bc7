"""Red-team tests: the part of the sandbox view cached per process (system and toolchain binds, masks)
carries nothing of one launch into another.

Launch A is given a writable folder, a read-only input, an environment variable, the network and an
extra toolchain folder (``$REQBENCH_SANDBOX_RO``); launch B, started later in the same process (and
concurrently, from another thread), is given none of them and tries to use every one. A positive control
shows A could.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reqbench.core.sandbox import ProcessResult, run_sandboxed
from reqbench.core.sandbox.view import EXTRA_RO_ENV

pytestmark = pytest.mark.usefixtures("require_bwrap")

ATTEMPT = ("echo pwned > {writable}/b.txt && echo WROTE; cat {secret} && echo READ; "
           "ls {toolchain} && echo LISTED; echo \"env=${{A_ONLY:-unset}}\"; exit 0")


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    out = {name: tmp_path / name for name in ("a_ws", "b_ws", "writable", "inputs", "toolchain")}
    for path in out.values():
        path.mkdir()
    (out["inputs"] / "secret.txt").write_text("A's input\n")
    (out["toolchain"] / "tool.txt").write_text("A's tool\n")
    out["secret"] = out["inputs"] / "secret.txt"
    return out


def _launch_a(p: dict[str, Path]) -> ProcessResult:
    return run_sandboxed(ATTEMPT.format(**p).replace("b.txt", "a.txt"), p["a_ws"], timeout=30,
                         writable=[p["writable"]], readonly_binds={p["secret"]: p["secret"]},
                         env={"A_ONLY": "a-secret"}, network=True)


def _launch_b(p: dict[str, Path]) -> ProcessResult:
    return run_sandboxed(ATTEMPT.format(**p), p["b_ws"], timeout=30)


def _assert_b_got_nothing(b: ProcessResult, p: dict[str, Path]) -> None:
    out = b.stdout_text()
    assert b.exit_code == 0, b.stderr_text()
    assert "WROTE" not in out and "READ" not in out and "LISTED" not in out and "env=unset" in out
    assert "A's" not in out and not (p["writable"] / "b.txt").exists()


def test_a_later_launch_gets_none_of_an_earlier_launchs_binds_or_environment(
        places: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTRA_RO_ENV, str(places["toolchain"]))
    a = _launch_a(places)
    assert a.exit_code == 0 and "WROTE" in a.stdout_text() and "READ" in a.stdout_text()  # positive control
    assert "LISTED" in a.stdout_text() and "env=a-secret" in a.stdout_text()
    monkeypatch.delenv(EXTRA_RO_ENV)  # the toolchain folder is no longer exposed: B must not see it
    _assert_b_got_nothing(_launch_b(places), places)
    assert (places["writable"] / "a.txt").read_text() == "pwned\n"


def test_concurrent_launches_share_no_per_launch_binds(places: dict[str, Path]) -> None:
    results: dict[str, list[ProcessResult]] = {"a": [], "b": []}

    def many(name: str) -> None:
        for _ in range(6):
            results[name].append(_launch_a(places) if name == "a" else _launch_b(places))

    threads = [threading.Thread(target=many, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert len(results["a"]) == len(results["b"]) == 6
    assert all("WROTE" in a.stdout_text() and "env=a-secret" in a.stdout_text() for a in results["a"])
    for b in results["b"]:
        _assert_b_got_nothing(b, places)
