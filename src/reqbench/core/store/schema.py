"""The SQLite schema of a run store and how a connection to it is opened.

`SCHEMA_VERSION` is kept in ``PRAGMA user_version``. A store written by a newer reqbench (higher version)
is refused with a clear error instead of being misread; an older one is upgraded by `_MIGRATIONS`.
Connections use WAL mode (readers, e.g. the viewer, never block the writer) and ``synchronous=FULL``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.store.blobs import BLOBS_DDL

SCHEMA_VERSION = 7

DDL = """
CREATE TABLE run (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  suite_path TEXT NOT NULL,
  protocol TEXT NOT NULL,
  options_json TEXT NOT NULL,
  created TEXT NOT NULL,
  reqbench_version TEXT NOT NULL,
  provenance_json TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE plan (
  row_key TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  condition TEXT NOT NULL,
  agent TEXT NOT NULL,
  repeat INTEGER NOT NULL,
  order_index INTEGER NOT NULL
);
CREATE TABLE attempts (
  row_key TEXT NOT NULL REFERENCES plan(row_key),
  attempt_no INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('scored', 'pending', 'invalid')),
  kind TEXT NOT NULL CHECK (kind IN ('run', 'reevaluate')),
  result_json TEXT NOT NULL,
  detail TEXT NOT NULL,
  started TEXT NOT NULL,
  finished TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  parent_attempt INTEGER,
  grading TEXT NOT NULL DEFAULT 'original',
  PRIMARY KEY (row_key, attempt_no)
);
CREATE TABLE gradings (
  label TEXT PRIMARY KEY,
  created TEXT NOT NULL,
  judge TEXT NOT NULL,
  checks INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE attempt_artifacts (
  row_key TEXT NOT NULL,
  attempt_no INTEGER NOT NULL,
  name TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (row_key, attempt_no, name),
  FOREIGN KEY (row_key, attempt_no) REFERENCES attempts(row_key, attempt_no)
);
CREATE TABLE submissions (
  row_key TEXT NOT NULL,
  attempt_no INTEGER NOT NULL,
  patch_sha256 TEXT NOT NULL,
  PRIMARY KEY (row_key, attempt_no),
  FOREIGN KEY (row_key, attempt_no) REFERENCES attempts(row_key, attempt_no)
);
CREATE TABLE check_results (
  row_key TEXT NOT NULL,
  attempt_no INTEGER NOT NULL,
  check_name TEXT NOT NULL,
  status TEXT NOT NULL,
  detail_json TEXT NOT NULL,
  PRIMARY KEY (row_key, attempt_no, check_name),
  FOREIGN KEY (row_key, attempt_no) REFERENCES attempts(row_key, attempt_no)
);
CREATE TABLE scores (
  row_key TEXT NOT NULL,
  attempt_no INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  PRIMARY KEY (row_key, attempt_no, metric),
  FOREIGN KEY (row_key, attempt_no) REFERENCES attempts(row_key, attempt_no)
);
CREATE TABLE judge_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_key TEXT NOT NULL,
  judge_id TEXT NOT NULL,
  contract TEXT NOT NULL,
  request_json TEXT NOT NULL,
  response_json TEXT NOT NULL,
  started TEXT NOT NULL,
  finished TEXT NOT NULL
);
CREATE INDEX judge_calls_by_key ON judge_calls(request_key);
CREATE TABLE cache (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  value_json TEXT NOT NULL,
  created TEXT NOT NULL,
  PRIMARY KEY (kind, key)
);
""" + "\n"

MODEL_CALLS_DDL = """
CREATE TABLE IF NOT EXISTS model_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  row_key TEXT NOT NULL,
  step INTEGER NOT NULL,
  api TEXT NOT NULL,
  model TEXT NOT NULL,
  request_key TEXT NOT NULL,
  request_json TEXT NOT NULL,
  response_json TEXT NOT NULL,
  status INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_usd REAL,
  latency_ms REAL NOT NULL,
  source TEXT NOT NULL,
  workspace TEXT NOT NULL,
  started TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS model_calls_by_row ON model_calls(row_key, id)
"""
"""Every call the model gateway answered (`core.llm.gateway.recorder`); ``source`` is ``upstream``,
``replay`` or ``refused`` (budget, offline miss)."""
SERVED_MODEL_DDL = "ALTER TABLE model_calls ADD COLUMN served_model TEXT NOT NULL DEFAULT ''"
"""The model that answered a call (``model`` is the one the request named)."""
PACKED_DDL = ("ALTER TABLE model_calls ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;"
              "ALTER TABLE model_calls ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;"
              "ALTER TABLE cache ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;" + BLOBS_DDL)
"""Request and response bodies as content-addressed parts (`core.store.blobs`): ``packed`` = 1 when a row's
JSON columns hold a part form (rows written before keep their JSON text, read as they are); ``stored_bytes``:
what a call added to the store (its new parts), counted against its row's bound."""
JUDGE_PACKED_DDL = "ALTER TABLE judge_calls ADD COLUMN packed INTEGER NOT NULL DEFAULT 0"
"""Judge calls' bodies as content-addressed parts too (``packed`` = 1), shared with the model calls and the
cache that hold the same request; rows written before keep their JSON text."""
DDL += MODEL_CALLS_DDL + ";\n" + SERVED_MODEL_DDL + ";\n" + PACKED_DDL + ";\n" + JUDGE_PACKED_DDL

_MIGRATIONS: dict[int, str] = {
    2: "ALTER TABLE run ADD COLUMN provenance_json TEXT NOT NULL DEFAULT '{}'",
    3: MODEL_CALLS_DDL,
    4: "ALTER TABLE attempts ADD COLUMN reason TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE attempts ADD COLUMN parent_attempt INTEGER;"
       "ALTER TABLE attempts ADD COLUMN grading TEXT NOT NULL DEFAULT 'original';"
       "CREATE TABLE gradings (label TEXT PRIMARY KEY, created TEXT NOT NULL, judge TEXT NOT NULL, "
       "checks INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '')",
    5: SERVED_MODEL_DDL,
    6: PACKED_DDL,
    7: JUDGE_PACKED_DDL,
}
"""version -> statements that upgrade a store from version-1. 2: the run's provenance (agent facts, suite
content hash and file manifest). 3: the model gateway's call records. 4: each attempt's outcome reason
(`core.execute.outcomes`), the attempt it re-grades (``parent_attempt``) and its grading label; the
``gradings`` made by `reqbench regrade`. 5: the model that answered each gateway call. 6: model traffic and
cache values stored as content-addressed parts (old rows stay as they were and are read as JSON text). 7:
judge-call bodies as parts too (likewise)."""


def connect(db_path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """Open `db_path` in autocommit mode (transactions are explicit, see `RunStore._tx`)."""
    if read_only:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False, timeout=30)
    else:
        conn = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.row_factory = sqlite3.Row
    return conn


def initialise(conn: sqlite3.Connection) -> None:
    """Create every table and stamp the schema version, in one transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in DDL.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def check_version(conn: sqlite3.Connection, db_path: Path) -> None:
    """Refuse a store from a newer reqbench; upgrade an older one in place."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise InputError(f"run store schema version {version} is newer than this reqbench supports "
                         f"({SCHEMA_VERSION}); upgrade reqbench to read it", file=str(db_path))
    if version == 0:
        raise InputError("not a reqbench run store (no schema version)", file=str(db_path))
    for target in range(version + 1, SCHEMA_VERSION + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _MIGRATIONS[target].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={target}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
