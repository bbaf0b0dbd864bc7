"""A run's rows from plan to store: the suite interface a protocol implements (`suite`: `SuiteProtocol`,
`Suite`, `RowContext`), the row records (`types`), opening or resuming a run (`lifecycle`), preflight,
the seeded schedule, executors (local, Ray), attempts and their selection (`runner`), regrading."""
