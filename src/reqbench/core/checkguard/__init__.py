"""Harness-side pytest plugin shipped into check sandboxes (see reqbench_guard)."""
