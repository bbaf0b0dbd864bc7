"""Running takeover suites: conditions (C1, C2, Oracle Pre/Post, two-phase, diagnostics), rows, reports."""
