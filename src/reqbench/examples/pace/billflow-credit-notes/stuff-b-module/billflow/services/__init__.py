"""Application services: the use cases the API and CLI call."""
