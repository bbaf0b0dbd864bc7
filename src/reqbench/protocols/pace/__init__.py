"""pace (PACE-Bench): a PRD and frozen, weighted Code Points; L0 structural checks, L1 call-graph evidence,
L2 checklist judge; deterministic aggregation, controls, agreement statistics and loss attribution.
Entry: `suite.PROTOCOL`; case format in `models`."""
