"""journey protocol."""
