"""Judges: the interface (`base`), the factory from a judge spec, the exact, replay and llm judges. Judges
return relation labels only; programs compute scores."""
