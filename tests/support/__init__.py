"""Reusable test servers and helpers (scripted OpenAI-compatible server)."""
