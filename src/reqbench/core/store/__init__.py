"""SQLite run store + content-addressed artifacts."""
