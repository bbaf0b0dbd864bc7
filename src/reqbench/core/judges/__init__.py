"""Judges return relation labels only; programs compute scores."""
