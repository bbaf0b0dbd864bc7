"""durations: parse short human-written durations into a number of seconds."""


def parse_duration(text: str) -> int:
    """Return the number of seconds in `text` (currently only the form '<n>s')."""
    text = text.strip()
    if text.endswith("s"):
        return int(text[:-1])
    raise ValueError(f"unsupported duration: {text!r}")
