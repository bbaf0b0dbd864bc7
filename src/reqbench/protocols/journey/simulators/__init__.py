"""Simulated users: one interface (`base.UserSimulator`), a deterministic and an llm implementation."""
