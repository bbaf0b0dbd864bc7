"""Interchange with other harnesses' task formats. A layer of its own above `protocols` (it reads several
protocols' suites) and below `cli`: nothing in core, protocols or report imports it."""
