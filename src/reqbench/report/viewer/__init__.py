"""`reqbench view`: a local, read-only web viewer of one run or of every run under a folder.

Stdlib `http.server` on 127.0.0.1, server-rendered HTML, no scripts and no external resources (every page is
sent with a Content-Security-Policy that forbids scripts), answering only to its own host names and to a
browser holding the launch's token. Modules: `server` (routes, HTTP), `site` (the runs found under the folder
and the study, which every page takes), `run_context` (one run opened read-only), `access` (host and token),
`index` (the SQLite row index behind the paged, sorted, filtered row table), `runs_list` (the runs list,
sorted and filtered), `pages_run` (run page, row table, the 404 page), `pages_row` (one row: inputs, diff,
checks, trajectory), `trajectory` (the agent's steps), `protocol_views` (a protocol's own part of a row or run
page, described by the protocol as `core.views` blocks and drawn by `blocks`), `pages_compare` (two runs side
by side), `render` (HTML helpers; everything from a run is escaped there).
"""

from reqbench.report.viewer.server import Viewer, ViewerServer, make_server

__all__ = ["Viewer", "ViewerServer", "make_server"]
