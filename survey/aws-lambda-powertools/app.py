"""The survey's payment API (survey/CONTRACT.md) in Flask, its charge made
idempotent by Powertools for AWS Lambda (Python)'s @idempotent_function with
the Redis persistence layer (RedisCachePersistenceLayer, here on Valkey): the
setup of the Idempotency docs' "Idempotent_function decorator" and "Redis
database" sections, keyed by the Idempotency-Key header and the caller."""

import json
import os
import secrets

import requests
from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyAlreadyInProgressError
from aws_lambda_powertools.utilities.idempotency.persistence.redis import RedisCachePersistenceLayer
from flask import Flask, request

PSP_URL = os.environ["PSP_URL"].rstrip("/")
PSP_KEY = os.environ["PSP_KEY"]
LEDGER = os.path.join(os.environ["STATE_DIR"], "ledger.jsonl")

persistence_layer = RedisCachePersistenceLayer(url=os.environ["SURVEY_VALKEY_URL"])
# The idempotency key is the client's Idempotency-Key scoped by its caller; a
# request without the header has no key (Powertools then runs it unprotected,
# as its docs say for a missing key).
config = IdempotencyConfig(event_key_jmespath="idempotency_key && [caller, idempotency_key]")

app = Flask(__name__)


class PSPUnavailable(Exception):
    """The PSP answered 5xx, cut the connection or timed out: outcome unknown."""


def append_ledger(row: dict) -> None:
    fd = os.open(LEDGER, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(row) + "\n").encode())
    finally:
        os.close(fd)


def read_ledger(order_id: str) -> list:
    try:
        with open(LEDGER) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a row cut by a kill
        if row.get("order_id") == order_id:
            rows.append(row)
    return rows


@idempotent_function(data_keyword_argument="idempotency", config=config, persistence_store=persistence_layer)
def charge(idempotency: dict, payment: dict) -> dict:
    order_id, amount = payment["order_id"], payment["amount"]
    currency = str(payment["currency"]).lower()
    headers = {"Authorization": f"Bearer {PSP_KEY}"}
    if idempotency["idempotency_key"] is not None:
        headers["Idempotency-Key"] = idempotency["idempotency_key"]
    form = {
        "amount": str(amount),
        "currency": currency,
        "payment_method": payment["payment_method"],
        "confirm": "true",
        "metadata[order_id]": order_id,
    }
    try:
        r = requests.post(f"{PSP_URL}/v1/payment_intents", data=form, headers=headers, timeout=5)
        pi = r.json()
    except (requests.RequestException, ValueError) as exc:
        raise PSPUnavailable(str(exc)) from exc
    pay_id = "pay_" + secrets.token_hex(8)
    if r.status_code == 200 and pi.get("status") == "succeeded":
        append_ledger({"order_id": order_id, "payment_id": pay_id, "amount": amount, "psp_id": pi["id"]})
        return {"status": 201, "body": {"id": pay_id, "order_id": order_id, "amount": amount,
                                        "currency": currency, "status": "succeeded", "psp_id": pi["id"]}}
    if r.status_code == 402:
        return {"status": 402, "body": {"id": pay_id, "order_id": order_id, "status": "failed"}}
    if r.status_code == 400:
        # the PSP refused the request itself (invalid parameters, a key reused
        # with other parameters): nothing was charged
        return {"status": 400, "body": {"error": "invalid request"}}
    # a PSP 5xx, or any other answer that is neither a charge nor a decline
    raise PSPUnavailable(f"PSP answered {r.status_code}")


@app.get("/healthz")
def healthz():
    return {"ok": True}


@app.get("/ledger")
def ledger():
    return {"data": read_ledger(request.args.get("order_id", ""))}


@app.post("/payments")
def create_payment():
    payment = request.get_json(force=True)
    idempotency = {
        "idempotency_key": request.headers.get("Idempotency-Key"),
        "caller": request.headers.get("Authorization"),
    }
    try:
        result = charge(idempotency=idempotency, payment=payment)
    except PSPUnavailable:
        return {"error": "psp unavailable"}, 502
    except IdempotencyAlreadyInProgressError:
        # the docs: "If you receive IdempotencyAlreadyInProgressError, you can
        # safely retry the operation"
        return {"error": "a request with this idempotency key is in progress"}, 409
    return result["body"], result["status"]
