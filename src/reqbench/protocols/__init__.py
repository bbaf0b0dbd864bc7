"""Protocols. Each subpackage exposes a module `suite` with a `PROTOCOL` object (see `base`)."""
