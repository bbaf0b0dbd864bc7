"""takeover protocol."""
