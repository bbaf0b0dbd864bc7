"""Model access: the OpenAI-compatible client with retries and a concurrency cap, the record/replay cache,
pricing, the run's model access (`run_access`) and the model gateway every agent talks through (`gateway`)."""
