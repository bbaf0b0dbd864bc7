"""Judges return relation labels only; programs compute scores.

Owns the judge contract (`base`), the one spec parser with one meaning per judge name (`spec`), the
request-answering judges `exact` (each contract's own rule), `replay:FILE` (the one replay format) and
`llm:MODEL`, and `factory.make_judge`. Protocol-specific contracts, rules and heuristics live in their
protocol and register their names in ``reqbench.judges``."""
