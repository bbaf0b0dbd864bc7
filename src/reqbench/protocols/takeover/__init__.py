"""takeover (ReqMemBench), in the paper's reading order: the Stage-1 annotation replayed into requirement
state graphs (`annotation/`), gold construction of targets, C1/C2 and RQ1-RQ3 instances (`construction/`),
the Phase-A inputs and response contract (`phase_a/`), semantic-judge contracts (`judging/`), RQ1-RQ3
scoring (`scoring/`), the three hidden delivery gates (`delivery/`), RQ4 as released (`rq4_delivery/`),
runs with their conditions, reports and pages (`run/`), the release on disk (`release/`) and dataset
statistics (`dataset/`). Entry: `suite.PROTOCOL`; the suite file is `suite_file`.
Beside them: `study`."""
