"""OpenAI-compatible model client with retries, concurrency cap and record/replay cache."""
