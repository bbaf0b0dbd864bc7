"""ReqMemBench RQ1-RQ3 scoring: matching, comparators, per-RQ metrics, target scoring, aggregation."""
