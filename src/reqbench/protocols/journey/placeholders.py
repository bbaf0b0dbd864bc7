"""The unfinished parts of a scaffolded journey instance: every text still starting with ``TODO:``.

`reqbench journey scaffold` writes an instance whose overview and every subtask's ``request`` and ``plain``
are placeholders a person replaces with the change in a user's words; the user simulator would otherwise
send the placeholder text to the agent as the request. Loading refuses such an instance with one error
listing every spot by its item (``overview``, ``T2.request``, ``T2.plain``, ...), so `validate`,
`calibrate` and `run` all say what is missing instead of running on a half-written journey. Only a text
that *starts* with the marker counts: a request that mentions a to-do list is a request.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.errors import InputError

MARKER = "TODO:"
"""How every placeholder of a scaffolded instance starts."""


def unfinished(data: Any, where: str = "") -> list[str]:
    """Every placeholder left in the raw instance document: ``overview``, then per stage and subtask its id
    and field (``S1.title``, ``T2.request``); an element without an id is named by its position."""
    if isinstance(data, str):
        return [where] if data.lstrip().startswith(MARKER) else []
    if isinstance(data, dict):
        return [hit for key, value in data.items()
                for hit in unfinished(value, f"{where}.{key}" if where else str(key))]
    if isinstance(data, list):
        return [hit for i, value in enumerate(data) for hit in unfinished(
            value, value["id"] if isinstance(value, dict) and isinstance(value.get("id"), str) and value["id"]
            else f"{where}[{i}]")]
    return []


def refuse_unfinished(data: Any, file: str) -> None:
    """Raise one `InputError` naming every placeholder of a scaffolded instance (nothing when complete)."""
    spots = unfinished(data)
    if spots:
        raise InputError(f"the instance is a scaffold with {len(spots)} part(s) still to write (each starting "
                         f"{MARKER!r}); write each in a user's words (see the header of instance.yaml)",
                         file=file, item=", ".join(spots))
