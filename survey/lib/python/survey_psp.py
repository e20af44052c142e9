"""The survey's payment handler (survey/CONTRACT.md), shared by the Python targets.

Each target's own file only wires this behind the implementation it surveys;
what happens once the middleware lets a request through is the same for all.
Everything here is blocking (urllib, one os.write per ledger row): an async
framework calls pay() in its thread pool.
"""
import hashlib
import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request

PSP_URL = os.environ["PSP_URL"].rstrip("/")
PSP_KEY = os.environ["PSP_KEY"]
LEDGER = os.path.join(os.environ["STATE_DIR"], "ledger.jsonl")
TIMEOUT = 5


class PSPUnavailable(Exception):
    """No answer, a cut, a timeout, or an answer that is neither a charge nor a decline."""


class InvalidBody(ValueError):
    pass


def bearer(auth):
    """The caller's token, or None when the header is not a bearer token."""
    if not auth or not auth.startswith("Bearer ") or not auth[len("Bearer "):].strip():
        return None
    return auth[len("Bearer "):].strip()


def parse_body(raw):
    """The create body's fields; InvalidBody names what is wrong."""
    try:
        body = json.loads(raw)
    except ValueError as e:
        raise InvalidBody("body is not JSON") from e
    if not isinstance(body, dict):
        raise InvalidBody("body is not an object")
    try:
        order = {
            "order_id": str(body["order_id"]),
            "amount": body["amount"],
            "currency": str(body["currency"]),
            "payment_method": str(body["payment_method"]),
        }
    except KeyError as e:
        raise InvalidBody(f"missing {e.args[0]}") from e
    a = order["amount"]
    if not isinstance(a, int) or isinstance(a, bool) or a < 1:
        raise InvalidBody("amount must be a positive integer")
    return order


def psp_key(auth, key):
    """The key the PSP sees: the caller and the client's key, so that two callers'
    equal keys are two payments at the PSP as well. None when the client sent none."""
    if not key:
        return None
    return hashlib.sha256((auth + "\n" + key).encode()).hexdigest()


def _psp(method, path, form=None, key=None):
    headers = {"Authorization": "Bearer " + PSP_KEY}
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if key:
        headers["Idempotency-Key"] = key
    req = urllib.request.Request(PSP_URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        if e.code == 402:
            return 402, None
        raise PSPUnavailable(f"psp answered {e.code}") from e
    except (OSError, ValueError) as e:  # timeout, cut connection, a body that is not JSON
        raise PSPUnavailable(str(e)) from e


def find_succeeded(pkey):
    """The succeeded PaymentIntent an earlier execution made under pkey, or None.
    Asking the PSP again under the same key cannot settle an earlier 5xx: the
    PSP replays that 5xx for as long as it keeps the key."""
    q = urllib.parse.urlencode({"query": f"metadata['idem_key']:'{pkey}' AND status:'succeeded'"})
    _, found = _psp("GET", "/v1/payment_intents/search?" + q)
    data = found.get("data") if isinstance(found, dict) else None
    if not isinstance(data, list):
        raise PSPUnavailable("psp search answered no data")
    return data[0] if data else None


def charge(pkey, order):
    """POST /v1/payment_intents once: (200, pi) or (402, None)."""
    form = {
        "amount": str(order["amount"]),
        "currency": order["currency"].lower(),
        "payment_method": order["payment_method"],
        "confirm": "true",
        "metadata[order_id]": order["order_id"],
    }
    if pkey:
        form["metadata[idem_key]"] = pkey
    status, pi = _psp("POST", "/v1/payment_intents", form, pkey)
    if status == 200 and (not isinstance(pi, dict) or pi.get("status") != "succeeded"):
        raise PSPUnavailable(f"psp status {pi.get('status') if isinstance(pi, dict) else pi!r}")
    return status, pi


def append_ledger(row):
    """One write(2) per row on a file opened O_APPEND: survives SIGKILL and a restart."""
    fd = os.open(LEDGER, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(row) + "\n").encode())
    finally:
        os.close(fd)


def ledger_rows(order_id):
    try:
        with open(LEDGER, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill
        if row.get("order_id") == order_id:
            rows.append(row)
    return rows


def pay(auth, key, order):
    """One execution of the create handler: (HTTP status, JSON body).

    Every execution that ends in a charge records a payment of its own: the
    handler trusts the middleware to run it once per key, which is what the
    survey measures.
    """
    pkey = psp_key(auth, key)
    pay_id = "pay_" + secrets.token_hex(8)
    try:
        pi = find_succeeded(pkey) if pkey else None
        if pi is None:
            status, pi = charge(pkey, order)
            if status == 402:
                return 402, {"id": pay_id, "order_id": order["order_id"], "status": "failed"}
    except PSPUnavailable:
        return 502, {"error": "psp unavailable"}
    append_ledger({"order_id": order["order_id"], "payment_id": pay_id, "amount": pi["amount"], "psp_id": pi["id"]})
    return 201, {"id": pay_id, "order_id": order["order_id"], "amount": pi["amount"],
                 "currency": order["currency"], "status": "succeeded", "psp_id": pi["id"]}
