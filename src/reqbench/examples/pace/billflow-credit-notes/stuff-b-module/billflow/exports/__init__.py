"""Data exports."""
