"""kvconf: read `key=value` configuration text into a dict."""


def parse(text: str) -> dict[str, str]:
    """Parse `key=value` lines into a dict; blank lines are ignored."""
    result: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        key, value = line.split("=", 1)
        result[key] = value
    return result
