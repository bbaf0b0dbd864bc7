"""Agents: the protocol (`base`), adapters and control agents."""
