"""Reports: tables, plots, HTML, local web viewer."""
