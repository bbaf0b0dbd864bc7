"""The toy protocol, imported from the installed plugin package ``reqbench-toy`` (tests/plugin)."""

from reqbench_toy.protocol import PROTOCOL, ToyProtocol, markers, write_suite

__all__ = ["PROTOCOL", "ToyProtocol", "markers", "write_suite"]
