"""Protocols: one subpackage per paper. Each registers its `suite.PROTOCOL` object through the
``reqbench.protocols`` entry point (`reqbench.core.registry`); `base` holds the interface the runner calls.
No protocol imports another; all of them import only `reqbench.core`."""
