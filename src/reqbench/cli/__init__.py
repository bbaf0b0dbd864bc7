"""The typer CLI: thin command modules (parse -> call library -> print)."""
