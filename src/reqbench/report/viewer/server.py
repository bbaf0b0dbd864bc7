"""The viewer's HTTP side: routes requests to the page modules, serves
artifacts as inert text, binds 127.0.0.1 only, and answers only requests `access.Gate` admits (the
viewer's own host name, the launch's token).

Routes: ``/`` runs list (one run: its page; a study: the study page, `pages_study`), ``/runs`` runs list,
``/study/rows?a=&b=`` two configurations of a study row by row, ``/run/NAME/`` run page, ``/run/NAME/rows`` row table
(``status``, ``outcome``, ``q``, ``sort``, ``dir``, ``page``, ``size``), ``/run/NAME/row?key=KEY``,
``/run/NAME/artifact/SHA256``, ``/run/NAME/api/rows`` (the same page as JSON), ``/compare?a=&b=``.
Anything else, an unknown run or row, and a compare of a run that is not here is a 404 page with the
navigation (an unknown artifact is a plain-text 404).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from reqbench.core.errors import InputError
from reqbench.report.viewer import pages_compare, pages_row, pages_run, pages_study, runs_list
from reqbench.report.viewer.access import Admission, Gate, host_name
from reqbench.report.viewer.site import Site
from reqbench.report.viewer.study_model import StudyView

HTML = "text/html; charset=utf-8"
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'self'"


class Viewer(Site):
    """The site's router: the answer to a GET of any of its pages (module docstring)."""

    def route(self, path: str, query: dict[str, str]) -> tuple[bytes, str, HTTPStatus]:
        """The answer to GET `path` (an unknown page is the 404 page)."""
        found = self._route(path, query)
        if found is None:
            return self._page(pages_run.not_found(self, f"no page {path}"), HTML, HTTPStatus.NOT_FOUND)
        if isinstance(found, str):
            return self._page(found, HTML)
        return found

    def _route(self, path: str, query: dict[str, str]) -> str | tuple[bytes, str, HTTPStatus] | None:
        if path == "/" and self.study is not None:
            return pages_study.study_page(self, self.study, query, pages_run.nav(self))
        if path == "/study/rows" and self.study is not None:
            return pages_study.study_rows_page(self, self.study, query, pages_run.nav(self))
        if path == "/runs" or path == "/" and len(self.runs) != 1:
            return runs_list.runs_page(self, query, pages_run.nav(self), path)
        if path == "/":
            return pages_run.run_page(self, next(iter(self.runs.values())))
        if path == "/compare":
            missing = [query[k] for k in ("a", "b") if query.get(k) and query[k] not in self.runs]
            if missing:
                return self._page(pages_run.not_found(self, f"no run named {missing[0]} here"), HTML,
                                  HTTPStatus.NOT_FOUND)
            return pages_compare.compare_page(self, query.get("a", ""), query.get("b", ""))
        if not path.startswith("/run/"):
            return None
        name, _, rest = path.removeprefix("/run/").partition("/")
        run = self.runs.get(unquote(name))
        if run is None:
            return self._page(pages_run.not_found(self, f"no run named {unquote(name)} here"), HTML,
                              HTTPStatus.NOT_FOUND)
        if rest == "":
            return pages_run.run_page(self, run)
        if rest == "rows":
            return pages_run.rows_page(self, run, query)
        if rest == "row":
            text = pages_row.row_page(self, run, query.get("key", ""))
            return text if text is not None else self._page(
                pages_run.not_found(self, f"no row {query.get('key', '')} in {run.name}", run), HTML,
                HTTPStatus.NOT_FOUND)
        if rest.startswith("artifact/"):
            try:
                data = run.store.artifacts.get(rest.removeprefix("artifact/"))
            except InputError:
                return b"not found", "text/plain; charset=utf-8", HTTPStatus.NOT_FOUND
            # Served as inert text (never HTML), whatever the agent put in it.
            return data, "text/plain; charset=utf-8", HTTPStatus.OK
        if rest == "api/rows":
            page = run.index().page(status=query.get("status", ""), text=query.get("q", ""),
                                    offset=int(query.get("offset", "0") or 0),
                                    limit=min(int(query.get("limit", "1000") or 1000), 10000))
            body = {"total": page.total, "offset": page.offset, "rows": page.rows}
            return json.dumps(body).encode(), "application/json", HTTPStatus.OK
        return None

    @staticmethod
    def _page(text: str, ctype: str, status: HTTPStatus = HTTPStatus.OK) -> tuple[bytes, str, HTTPStatus]:
        return text.encode("utf-8"), ctype, status


REFUSED = {
    Admission.WRONG_HOST: b"forbidden: this viewer answers only to 127.0.0.1, localhost and [::1] (or a name "
                          b"given with reqbench view --host)",
    Admission.NO_TOKEN: b"forbidden: open the URL reqbench view printed (it carries this launch's token)",
}


def _handler(viewer: Viewer, gate: Gate) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            url = urlsplit(self.path)
            admission = gate.admit(self.headers.get("Host"), self.headers.get("Cookie"), url.query)
            if admission is Admission.LOGIN:
                self._send(b"", "text/plain; charset=utf-8", HTTPStatus.SEE_OTHER,
                           gate.login_headers(url.path, url.query))
                return
            if admission is not Admission.SERVE:
                self._send(REFUSED[admission], "text/plain; charset=utf-8", HTTPStatus.FORBIDDEN)
                return
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            try:
                answer = viewer.route(url.path, query)
            except Exception as exc:  # a bad request must not take the viewer down
                answer = (f"error: {exc}".encode(), "text/plain; charset=utf-8",
                          HTTPStatus.INTERNAL_SERVER_ERROR)
            self._send(*answer)

        def _send(self, body: bytes, ctype: str, code: HTTPStatus,
                  extra: Sequence[tuple[str, str]] = ()) -> None:
            self.send_response(code)
            for name, value in [("Content-Type", ctype), ("Content-Length", str(len(body))),
                                ("Content-Security-Policy", CSP), ("X-Content-Type-Options", "nosniff"),
                                ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"), *extra]:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler


class ViewerServer(ThreadingHTTPServer):
    """The viewer's server: `viewer` (its runs), `gate` (host names and token), `url` (open this)."""

    viewer: Viewer
    gate: Gate

    @property
    def token(self) -> str:
        return self.gate.token

    @property
    def url(self) -> str:
        return self.gate.url()


def make_server(path: Path, *, port: int = 0, hosts: tuple[str, ...] = (),
                study: StudyView | None = None) -> ViewerServer:
    """A server for the run directory or folder of runs `path` (with `study`: a study directory and what
    its study page shows), bound to 127.0.0.1:`port` (0 = any free port), answering also to the host names
    `hosts`; call `serve_forever()`, then `server_close()` and `viewer.close()`."""
    extra = tuple(host_name(h) for h in hosts)
    viewer = Viewer(path, study)
    try:
        server = ViewerServer(("127.0.0.1", port), BaseHTTPRequestHandler)
    except OSError as exc:
        viewer.close()
        raise InputError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})",
                         item="--port") from exc
    server.viewer = viewer
    server.gate = Gate(port=server.server_address[1], extra_hosts=extra)
    server.RequestHandlerClass = _handler(viewer, server.gate)
    return server
