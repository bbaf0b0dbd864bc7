"""slugkit: turn titles into URL slugs."""


def slugify(title: str) -> str:
    """Return a URL slug for `title`."""
    return title.strip().lower().replace(" ", "-")
