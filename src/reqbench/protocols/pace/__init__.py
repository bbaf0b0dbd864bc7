"""pace protocol."""
