"""ReqMemBench RQ1-RQ3 scoring, read top-down like the paper: instance readers, matching, comparators,
state comparison, RQ1 / RQ2 / RQ3 metrics, target scoring, cross-RQ consistency, aggregation, tables.

Public entry points: `score_target` (one target, one condition) and `gold_response` (a response built
from gold), re-exported here; `load_target` reads the instance files of one target.
"""

from reqbench.protocols.takeover.scoring.instances import TargetInstances, load_target
from reqbench.protocols.takeover.scoring.target import TargetScore, gold_response, score_target

__all__ = ["TargetInstances", "TargetScore", "gold_response", "load_target", "score_target"]
