"""Reports of runs, for any protocol: a suite's typed `Summary` plus run accounting and provenance as
terminal, markdown and HTML tables (`tables`, `run_report`, `html`), PNG plots (`plots`, `headline_plots`),
row exports, and the local web viewer (`viewer`). Knows no protocol: everything comes from the summary."""
