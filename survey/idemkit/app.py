"""The survey's payment API (survey/CONTRACT.md) behind idemkit's ASGI
IdempotencyMiddleware on FastAPI, with idemkit's PostgresBackend: the setup of
idemkit's README (HTTP section, "For production, swap the backend and add
scope") and examples/shared/backends.py."""

import json
import os
import secrets

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from idemkit import HttpConfig, IdempotencyMiddleware
from idemkit.backends.postgres import PostgresBackend

PSP_URL = os.environ["PSP_URL"].rstrip("/")
PSP_KEY = os.environ["PSP_KEY"]
LEDGER = os.path.join(os.environ["STATE_DIR"], "ledger.jsonl")

app = FastAPI()
app.add_middleware(
    IdempotencyMiddleware,
    backend=PostgresBackend.from_url(os.environ["SURVEY_POSTGRES_DSN"]),
    # the caller is the bearer token: one namespace of keys per caller
    config=HttpConfig(scope=lambda req: req.headers.get("authorization", "anonymous")),
)


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


@app.get("/healthz")
async def healthz():
    return {"ok": True}


@app.get("/ledger")
async def ledger(order_id: str):
    return {"data": read_ledger(order_id)}


@app.post("/payments")
async def create_payment(request: Request):
    body = await request.json()
    order_id, amount = body["order_id"], body["amount"]
    currency = str(body["currency"]).lower()
    headers = {"Authorization": f"Bearer {PSP_KEY}"}
    key = request.headers.get("idempotency-key")
    if key is not None:
        headers["Idempotency-Key"] = key
    form = {
        "amount": str(amount),
        "currency": currency,
        "payment_method": body["payment_method"],
        "confirm": "true",
        "metadata[order_id]": order_id,
    }
    try:
        async with httpx.AsyncClient(timeout=5.0) as psp:
            r = await psp.post(f"{PSP_URL}/v1/payment_intents", data=form, headers=headers)
        pi = r.json()
    except (httpx.HTTPError, ValueError):
        return JSONResponse({"error": "psp unavailable"}, status_code=502)
    pay_id = "pay_" + secrets.token_hex(8)
    if r.status_code == 200 and pi.get("status") == "succeeded":
        append_ledger({"order_id": order_id, "payment_id": pay_id, "amount": amount, "psp_id": pi["id"]})
        return JSONResponse(
            {"id": pay_id, "order_id": order_id, "amount": amount, "currency": currency,
             "status": "succeeded", "psp_id": pi["id"]},
            status_code=201,
        )
    if r.status_code == 402:
        return JSONResponse({"id": pay_id, "order_id": order_id, "status": "failed"}, status_code=402)
    if r.status_code == 400:
        # the PSP refused the request itself (invalid parameters, a key reused
        # with other parameters): nothing was charged
        return JSONResponse({"error": "invalid request"}, status_code=400)
    # a PSP 5xx, or any other answer that is neither a charge nor a decline:
    # the outcome is unknown
    return JSONResponse({"error": "psp unavailable"}, status_code=502)
