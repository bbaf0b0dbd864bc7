"""The Stage-1 annotation of a takeover project: its files, validation rules, loading and the replay of requirement
atoms into state graphs (ReqMemBench A.1)."""
