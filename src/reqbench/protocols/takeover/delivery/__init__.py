"""Delivery: the three hidden gates (build, target, regression), initial repositories, admission."""
