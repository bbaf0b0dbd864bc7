"""specpath protocol."""
