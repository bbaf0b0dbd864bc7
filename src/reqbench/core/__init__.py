"""Harness core shared by every protocol. Imports nothing from `reqbench.protocols`."""
