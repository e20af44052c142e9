"""The third control row: the survey's own shared handler (survey/lib/python,
the same pay() every Python target runs) behind a small idempotency layer
that does what the survey's rules ask, so that "the same handler passes behind
a correct layer" is a row of the table and not a sentence.

The layer, on one SQLite file in STATE_DIR shared by the instances:
- keys are scoped by the caller (the Authorization header);
- a claim is a row written in one transaction with an owner and a lease
  (LEASE_S, above the handler's 5 s PSP timeout); a copy that finds a live
  claim is answered 409 with Retry-After; a copy that finds one whose lease
  lapsed (its owner died or froze) takes it over with a compare-and-set on
  the owner, and runs the handler again, which finds the first charge;
- the fingerprint is the parsed request's meaning (sorted JSON), so a
  reordered retry replays and a changed field is refused with 422;
- only final answers are stored (2xx and 4xx, a decline included); a 5xx,
  the handler's "outcome unknown", releases the claim so the retry runs the
  handler again; a completion or release by an owner that lost its claim is
  a no-op;
- a stored answer is replayed with its status and body for KEY_TTL_S.
Standard library only: the row proves the handler, not a framework.
"""

import hashlib
import json
import os
import secrets
import sqlite3
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "python"))
import survey_psp  # noqa: E402

DB = os.path.join(os.environ["STATE_DIR"], "keys.sqlite")
LEASE_S = float(os.environ.get("CONTROL_LEASE_S", "8"))
KEY_TTL_S = float(os.environ.get("CONTROL_KEY_TTL_S", "20"))
MAX_KEY = 255


def db():
    c = sqlite3.connect(DB, timeout=30, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    return c


def init():
    c = db()
    try:
        c.execute("""CREATE TABLE IF NOT EXISTS keys (
            scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
            owner TEXT, lease_until REAL, status INTEGER, body TEXT, expires REAL NOT NULL,
            PRIMARY KEY (scope, key))""")
    finally:
        c.close()


def problem(status, kind, title, **extra):
    return status, {"type": "urn:survey-control:" + kind, "title": title, "status": status, **extra}, {}


def claim(scope, key, fp):
    """('run', owner token) when this request owns the key now; ('replay', (status,
    body)); ('busy', None); ('mismatch', None)."""
    now = time.time()
    token = secrets.token_hex(8)
    c = db()
    try:
        c.execute("BEGIN IMMEDIATE")
        row = c.execute("SELECT fingerprint, owner, lease_until, status, body, expires FROM keys WHERE scope=? AND key=?",
                        (scope, key)).fetchone()
        if row is not None and row[5] <= now:
            c.execute("DELETE FROM keys WHERE scope=? AND key=?", (scope, key))
            row = None
        if row is None:
            c.execute("INSERT INTO keys VALUES (?,?,?,?,?,NULL,NULL,?)", (scope, key, fp, token, now + LEASE_S, now + KEY_TTL_S))
            c.execute("COMMIT")
            return "run", token
        fingerprint, owner, lease_until, status, body, _ = row
        if fingerprint != fp:
            c.execute("COMMIT")
            return "mismatch", None
        if status is not None:
            c.execute("COMMIT")
            return "replay", (status, json.loads(body))
        if lease_until > now:
            c.execute("COMMIT")
            return "busy", None
        # the owner's lease lapsed: take the request over
        c.execute("UPDATE keys SET owner=?, lease_until=? WHERE scope=? AND key=? AND owner=?",
                  (token, now + LEASE_S, scope, key, owner))
        c.execute("COMMIT")
        return "run", token
    finally:
        c.close()


def finish(scope, key, token, status, body):
    """Store a final answer, or release the claim on a 5xx; only while this
    request still owns it (a takeover changed the owner: a no-op)."""
    c = db()
    try:
        if status >= 500:
            c.execute("DELETE FROM keys WHERE scope=? AND key=? AND owner=? AND status IS NULL", (scope, key, token))
        else:
            c.execute("UPDATE keys SET status=?, body=?, owner=NULL WHERE scope=? AND key=? AND owner=? AND status IS NULL",
                      (status, json.dumps(body), scope, key, token))
    finally:
        c.close()


def create(auth, key_header, raw):
    """The layer around the shared handler: (status, body, extra headers)."""
    if survey_psp.bearer(auth) is None:
        return 401, {"error": "unauthorized"}, {}
    if key_header is None:
        return problem(400, "missing-key", "Idempotency-Key is required")
    key = key_header.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':  # an RFC 8941 sf-string: the bare key
        key = key[1:-1]
    if not key:
        return problem(400, "empty-key", "Idempotency-Key is empty")
    if len(key) > MAX_KEY:
        return problem(400, "long-key", f"Idempotency-Key is longer than {MAX_KEY} characters")
    try:
        order = survey_psp.parse_body(raw)
        fp = hashlib.sha256(json.dumps(order, sort_keys=True).encode()).hexdigest()
    except survey_psp.InvalidBody as e:
        order, fp = None, "invalid:" + hashlib.sha256(raw).hexdigest()
        invalid = str(e)
    what, stored = claim(auth, key, fp)
    if what == "replay":
        return stored[0], stored[1], {"Idempotent-Replayed": "true"}
    if what == "busy":
        status, body, _ = problem(409, "in-progress", "A request with this Idempotency-Key is in progress")
        return status, body, {"Retry-After": "1"}
    if what == "mismatch":
        return problem(422, "mismatch", "Idempotency-Key was used with another request")
    if order is None:
        status, body = 400, {"error": "invalid body: " + invalid}
    else:
        status, body = survey_psp.pay(auth, key, order)
    finish(auth, key, stored, status, body)
    return status, body, {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def send(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        ctype = "application/problem+json" if isinstance(body, dict) and "type" in body else "application/json"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        u = urlparse(self.path)
        if u.path == "/healthz":
            return self.send(200, {"ok": True})
        if u.path == "/ledger":
            return self.send(200, {"data": survey_psp.ledger_rows(parse_qs(u.query).get("order_id", [""])[0])})
        if u.path == "/payments":
            return self.send(405, {"error": "method not allowed"})
        return self.send(404, {"error": "not found"})

    def do_POST(self):
        if urlparse(self.path).path != "/payments":
            return self.send(404, {"error": "not found"})
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        keys = self.headers.get_all("Idempotency-Key") or []
        if len(keys) > 1:
            return self.send(*problem(400, "two-keys", "more than one Idempotency-Key"))
        self.send(*create(self.headers.get("Authorization", ""), keys[0] if keys else None, raw))

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    init()
    ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
