"""RQ4 as released: code environments, acceptance criteria, the agent-judge registry, scoring and the delivery's checks
(ReqMemBench 3.1, C.2)."""
