"""A takeover suite's size and dataset-statistics tables (ReqMemBench B.1, Tables 7-9)."""
