"""takeover (ReqMemBench): requirement atoms replayed from annotated events (`project`, `validation`,
`loading`, `replay`), gold states and RQ1-RQ3 instances and Phase-A packages (`gold`, `rq*`, `packages`),
scoring (`scoring/`), delivery gates (`delivery/`) and runs with their conditions (`run/`).
Entry: `suite.PROTOCOL`."""
