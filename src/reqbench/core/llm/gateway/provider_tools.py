"""Requests that would have the provider reach the network, or run code, on the agent's behalf.

The sandbox gives an agent no network; the gateway is its one way out, and the provider behind it is a
computer on the internet. A request can ask that computer to search the web, fetch a URL, call an MCP
server, or run code in a container -- a way around the sandbox (the agent reads what it was not given, or
sends out what it holds in a URL) and a cost the price table does not know. So, unless the run opts in
(``reqbench run --allow-provider-tools``, stored with the run and printed by every report), the gateway
refuses every such request with an error body naming the field (``provider_tool_not_allowed``), before it
is reserved or forwarded:

=============================  ===================================================================
where                          refused
=============================  ===================================================================
``tools[i].type`` (any API)    every type the agent does not run itself: Responses ``web_search``,
                               ``web_search_preview*``, ``file_search``, ``code_interpreter``,
                               ``image_generation``, ``mcp`` (``server_url``); Messages server tools
                               ``web_search_*``, ``web_fetch_*``, ``code_execution_*``,
                               ``tool_search_tool_*``, ``mcp_toolset``; any type not known below
body fields                    Chat ``web_search_options``, ``plugins`` (OpenRouter's web search);
                               Messages ``mcp_servers``, ``container``; Responses ``prompt`` (a
                               stored prompt brings tools the request does not show)
image, file, document parts    a URL with a network location (``https://...``) anywhere in the part:
(`DOWNLOAD_PARTS`)             the provider would download it; ``data:`` URLs and base64 pass
=============================  ===================================================================

Tools the agent runs itself pass: ``function`` and ``custom`` in every API, and the client-executed
built-in types whose calls come back to the agent -- Responses ``local_shell``, ``shell``,
``apply_patch``, ``computer_use_preview`` (the agent performs the clicks, inside its sandbox); Messages
tools without a type and ``bash_*``, ``text_editor_*``, ``computer_*``, ``memory_*``. The
``anthropic-beta`` values that switch provider tools on (`TOOL_BETAS`) are dropped from the forwarded
header rather than refused: a beta alone runs nothing, and tools announce betas they may never use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

CLIENT_TOOL_TYPES = frozenset({"function", "custom", "local_shell", "shell", "apply_patch",
                               "computer_use_preview"})
"""Tool types (Chat, Responses) whose calls the agent executes, not the provider."""
CLIENT_TOOL_PREFIXES = ("bash_", "text_editor_", "computer_", "memory_")
"""Anthropic-defined tool types (versioned: ``bash_20250124``) the agent executes."""
PROVIDER_FIELDS = {
    "web_search_options": "has the provider search the web",
    "plugins": "turns on provider plugins (web search, URL fetching)",
    "mcp_servers": "has the provider connect to MCP servers",
    "container": "runs the request's code in a provider container",
    "prompt": "brings a stored prompt, whose tools the request does not show",
}
"""Body fields that switch provider-side tools on, and what they make the provider do."""
DOWNLOAD_PARTS = frozenset({"image_url", "file", "input_image", "input_file", "image", "document"})
"""Content parts whose source may be a URL the provider fetches: Chat ``image_url`` and ``file`` (OpenRouter
takes a URL as ``file_data``), Responses ``input_image`` / ``input_file``, Messages ``image`` / ``document``
(``source.type: url``)."""
REMOTE = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*://")
"""A URL with a network location (``https://``, ``ftp://``, ``gs://``); ``data:`` URLs and base64 are inline."""
TOOL_BETAS = ("mcp-client-", "web-fetch-", "web-search-", "code-execution-", "skills-")
"""Prefixes of the ``anthropic-beta`` values that enable provider-side tools."""
OPT_IN = "--allow-provider-tools"


def provider_tool_use(body: Mapping[str, Any]) -> str | None:
    """Why `body` would have the provider fetch, search or run things for the agent (naming the field), or
    None when it asks for nothing the agent does not run itself."""
    return _tool_type(body) or _field(body) or _remote_url(body)


def without_tool_betas(headers: Mapping[str, str]) -> dict[str, str]:
    """`headers` with the ``anthropic-beta`` values of `TOOL_BETAS` dropped (the header too when none is left)."""
    out = dict(headers)
    betas = [b.strip() for b in out.pop("anthropic-beta", "").split(",") if b.strip()]
    kept = [b for b in betas if not b.lower().startswith(TOOL_BETAS)]
    if kept:
        out["anthropic-beta"] = ",".join(kept)
    return out


def _tool_type(body: Mapping[str, Any]) -> str | None:
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        kind = tool.get("type") if isinstance(tool, Mapping) else None
        if kind is None or kind in CLIENT_TOOL_TYPES or (isinstance(kind, str) and kind.startswith(
                CLIENT_TOOL_PREFIXES)):
            continue
        return (f"tools[{i}].type = {str(kind)[:80]!r} is a tool the provider runs itself (it may search, "
                "fetch or execute outside the sandbox); only tools the agent runs (function, custom) pass")
    return None


def _field(body: Mapping[str, Any]) -> str | None:
    for name, what in PROVIDER_FIELDS.items():
        if body.get(name) is not None:  # ``web_search_options: {}`` already turns search on
            return f"field {name!r} {what}, outside the sandbox"
    return None


def _remote_url(body: Mapping[str, Any]) -> str | None:
    for path, value in _downloaded(body):
        if REMOTE.match(value):
            return (f"{path} = {value[:80]!r} is a URL the provider would download, outside the sandbox; "
                    "send the content inline (a data: URL or base64)")
    return None


def _downloaded(body: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(path, text) of every string inside a content part the provider may download (`DOWNLOAD_PARTS`),
    walked without recursion (a body may nest as deep as the JSON parser allows). Only those parts: a tool
    call the agent made (``tool_use.input.url``) is its own business, not a download. Only containers and
    the strings of such parts are visited, and a path is spelled only for a string yielded (a chain of
    (parent, key, is_index) until then): a long conversation is walked, not copied into path strings."""
    stack: list[tuple[Any, bool, _Where]] = [(body, False, None)]
    while stack:
        node, inside, where = stack.pop()
        if isinstance(node, str):  # only the strings of a part are pushed
            yield _spelled(where), node
        elif isinstance(node, dict) or (isinstance(node, Mapping) and not isinstance(node, list)):
            kind = node.get("type")  # a JSON schema may name a property "type": its value is then an object
            inside = inside or (isinstance(kind, str) and kind in DOWNLOAD_PARTS)
            for key, value in node.items():
                if (inside if isinstance(value, str) else _container(value)):
                    stack.append((value, inside, (where, key, False)))
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if (inside if isinstance(item, str) else _container(item)):
                    stack.append((item, inside, (where, i, True)))


_Where = tuple["_Where", Any, bool] | None
"""Where a node is: None for the body, else (where its container is, its key or index, whether an index)."""


def _container(value: Any) -> bool:
    """Whether `value` (not a string) is a JSON object or array: what `_downloaded` walks into."""
    return isinstance(value, (dict, list)) or (value is not None and not isinstance(value, (int, float))
                                               and isinstance(value, Mapping))


def _spelled(where: _Where) -> str:
    """The path of `where` as the refusal names it: ``messages[0].content[1].image_url.url``."""
    steps: list[tuple[Any, bool]] = []
    while where is not None:
        where, key, is_index = where
        steps.append((key, is_index))
    path = ""
    for key, is_index in reversed(steps):
        path = f"{path}[{key}]" if is_index else (f"{path}.{key}" if path else str(key))
    return path
