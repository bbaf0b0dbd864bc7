"""L1 call-graph evidence localisation (paper §3.1 L1, appendix §13 "Evidence package and stopping rule")."""
