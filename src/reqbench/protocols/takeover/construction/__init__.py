"""Gold construction: targets and their snapshots, history conditions C1/C2 and the RQ1-RQ3 instances with their gold
(ReqMemBench A.1, B.2-B.3)."""
