"""Phase A as the agent sees it: the public input packages, their leakage scan, the instructions and the response
contract (ReqMemBench B.2, D.2-D.3)."""
