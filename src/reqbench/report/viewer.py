"""`reqbench view`: a local, read-only web viewer of a run (stdlib `http.server`, 127.0.0.1 only).

Pages: ``/`` run overview (metadata, counts, the report tables when given), ``/rows`` every planned row
with its selected attempt (``?status=scored|pending|invalid|unstarted`` filters), ``/row?key=KEY`` every
attempt of a row (result JSON, detail, check results, scores, artifacts), ``/artifact/SHA256`` the raw
blob (text when it is UTF-8), and ``/api/rows`` the exported rows as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row
from reqbench.core.store.export import result_rows
from reqbench.core.store.runstore import RunStore
from reqbench.report.html import html_table, page
from reqbench.report.tables import TableData

NAV = '<p><a href="/">overview</a> · <a href="/rows">rows</a> · <a href="/api/rows">rows as JSON</a></p>'


class RunViewer:
    """Renders the pages of one run; `make_server` binds it to HTTP."""

    def __init__(self, store: RunStore, overview: Sequence[TableData] = ()) -> None:
        self.store = store
        self.overview = list(overview)

    def index(self) -> str:
        meta = self.store.meta
        facts = [["protocol", meta.protocol], ["suite", meta.suite_path], ["created", meta.created],
                 ["reqbench", meta.reqbench_version], ["options", json.dumps(meta.options, sort_keys=True)]]
        counts = [[k, f'<a href="/rows?status={k}">{v}</a>' if k in _STATUSES else str(v)]
                  for k, v in self.store.counts().items()]
        body = [f"<h1>run {escape(self.store.run_dir.name)}</h1>", NAV,
                html_table(TableData("run", ["", "value"], facts)), _raw_table("rows", ["", "rows"], counts)]
        body += [html_table(t) for t in self.overview]
        return page(f"run {self.store.run_dir.name}", "\n".join(body))

    def rows(self, status: str | None) -> str:
        lines = []
        for r in result_rows(self.store):
            if status and r.status != status:
                continue
            link = f'<a href="/row?key={quote(r.row_key, safe="")}">{escape(r.row_key)}</a>'
            lines.append([link, escape(r.task_id), escape(r.condition), escape(r.agent), str(r.repeat),
                          f'<span class="{r.status}">{r.status}</span>', str(r.attempts)])
        table = _raw_table(f"rows{f' ({escape(status)})' if status else ''}",
                           ["row", "task", "condition", "agent", "repeat", "status", "attempts"], lines)
        return page("rows", f"<h1>rows</h1>{NAV}{table}")

    def row(self, key: str) -> str | None:
        plan = {row.key: row for row in self.store.plan()}
        if key not in plan:
            return None
        row: Row = plan[key]
        selected = self.store.selected_attempt(row)
        parts = [f"<h1>{escape(key)}</h1>", NAV]
        attempts = self.store.attempts(row)
        if not attempts:
            parts.append("<p>No attempt yet.</p>")
        for a in attempts:
            mark = " (selected)" if selected and a.attempt_no == selected.attempt_no else ""
            arts = [[f'<a href="/artifact/{sha}">{escape(name)}</a>', sha[:12]]
                    for name, sha in sorted(a.artifacts.items())]
            parts += [f'<h2>attempt {a.attempt_no}{mark}: <span class="{a.status.value}">'
                      f"{a.status.value}</span> ({escape(a.kind)})</h2>",
                      f"<p>{escape(a.started)} → {escape(a.finished)}</p>",
                      _raw_table("artifacts", ["name", "sha256"], arts) if arts else "",
                      html_table(TableData("checks", ["check", "status", "detail"],
                                           [[c["check"], c["status"], json.dumps(c["detail"])]
                                            for c in self.store.check_results(row, a.attempt_no)])),
                      "<h3>result</h3><pre>" + escape(json.dumps(a.result, indent=2, sort_keys=True))
                      + "</pre>"]
            if a.detail:
                parts.append(f"<h3>detail</h3><pre>{escape(a.detail)}</pre>")
        return page(key, "\n".join(parts))

    def artifact(self, sha: str) -> tuple[bytes, str] | None:
        try:
            data = self.store.artifacts.get(sha)
        except InputError:
            return None
        try:
            data.decode("utf-8")
            return data, "text/plain; charset=utf-8"
        except UnicodeDecodeError:
            return data, "application/octet-stream"

    def api_rows(self) -> bytes:
        return json.dumps([r.model_dump() for r in result_rows(self.store)], indent=1).encode()


_STATUSES = ("scored", "pending", "invalid", "unstarted")


def _raw_table(title: str, columns: list[str], rows: list[list[str]]) -> str:
    """A table whose cells are already HTML (links); callers escape the text parts."""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><caption>{title}</caption><tr>{head}</tr>{body}</table>"


def _handler(viewer: RunViewer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            try:
                if url.path == "/":
                    self._send(viewer.index().encode(), "text/html; charset=utf-8")
                elif url.path == "/rows":
                    self._send(viewer.rows(query.get("status")).encode(), "text/html; charset=utf-8")
                elif url.path == "/row" and (html := viewer.row(query.get("key", ""))) is not None:
                    self._send(html.encode(), "text/html; charset=utf-8")
                elif url.path.startswith("/artifact/") and (
                        blob := viewer.artifact(url.path.removeprefix("/artifact/"))) is not None:
                    self._send(*blob)
                elif url.path == "/api/rows":
                    self._send(viewer.api_rows(), "application/json")
                else:
                    self._send(b"not found", "text/plain; charset=utf-8", HTTPStatus.NOT_FOUND)
            except Exception as exc:  # a bad request must not take the viewer down
                self._send(f"error: {exc}".encode(), "text/plain; charset=utf-8",
                           HTTPStatus.INTERNAL_SERVER_ERROR)

        def _send(self, body: bytes, ctype: str, code: HTTPStatus = HTTPStatus.OK) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler


def make_server(run_dir: Path, *, port: int = 0, overview: Sequence[TableData] = ()) -> ThreadingHTTPServer:
    """A server for `run_dir` bound to 127.0.0.1:`port` (0 = any free port); call `serve_forever()`."""
    viewer = RunViewer(RunStore.open(run_dir), overview)
    try:
        return ThreadingHTTPServer(("127.0.0.1", port), _handler(viewer))
    except OSError as exc:
        viewer.store.close()
        raise InputError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})",
                         item="--port") from exc
