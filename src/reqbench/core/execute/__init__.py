"""Plan -> schedule -> executor. See `types` for the row contract."""
