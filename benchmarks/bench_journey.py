"""Journey speed: one hidden-test run of the bundled instance, calibration, and one reference session.

Targets (2-core machine, idle): a hidden-test run under 1.5 s, calibration (10 runs) under 15 s, a
reference session per persona under 15 s with a cold cache.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from reqbench.core.bundled import bundled_suite
from reqbench.protocols.journey import online
from reqbench.protocols.journey.assistants import open_session
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.env import make_workspace
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.personas import PRESET_NAMES, preset
from reqbench.protocols.journey.session import SessionLimits, run_session
from reqbench.protocols.journey.simulators.deterministic import DeterministicSimulator

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure, interpreter_start  # noqa: E402

INSTANCE = bundled_suite("journey/tasklet")


def _timed(label: str, fn) -> float:  # type: ignore[no-untyped-def]
    online._CACHE.runs.clear()
    start = time.perf_counter()
    fn()
    took = time.perf_counter() - start
    print(f"{label:40s} {took:7.2f} s")
    figure(f"journey: {label}", took, "interpreter start", interpreter_start())
    return took


def main() -> None:
    inst = load_instance(INSTANCE)
    _timed("hidden-test run (base)", lambda: online.run_hidden_tests(inst, inst.repo_dir))
    _timed("calibration (10 runs)", lambda: calibrate(inst))
    for name in PRESET_NAMES:
        def session(name: str = name) -> None:
            with tempfile.TemporaryDirectory() as tmp:
                ws = make_workspace(inst.repo_dir, Path(tmp) / "ws")
                sim = DeterministicSimulator(inst, preset(name), seed=0)
                sess = open_session("reference", inst, ws, lambda: list(sim.state.disclosed))
                run_session(inst, name, sim, sess, ws, Path(tmp), SessionLimits())

        _timed(f"reference session, {name}", session)


if __name__ == "__main__":
    main()
