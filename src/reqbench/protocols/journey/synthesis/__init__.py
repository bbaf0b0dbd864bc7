"""`reqbench journey synthesize`: weak-to-strong synthesis of long-horizon instances (SWE-Journey §3.2, A.2).

`seed` (the input), `dimensions` (the four task dimensions and the plan gates), `coverage` (task angles,
seed selection, coverage report), `prompts`, `gates` (execution and rubric gates) and `pipeline` (the run).
The output is a journey instance marked unreviewed, with `synthesis.json` beside it.
"""

from reqbench.protocols.journey.synthesis.pipeline import Options, Synthesizer
from reqbench.protocols.journey.synthesis.seed import load_seed

__all__ = ["Options", "Synthesizer", "load_seed"]
