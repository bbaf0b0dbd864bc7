"""The typer CLI: thin command modules (parse -> call the library -> print); the generic commands
(`validate`, `run`, `report`, `regrade`, `export`, `view`, `demo`) and each protocol's own command group."""
