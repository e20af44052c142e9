"""The survey's payment API (survey/CONTRACT.md) behind idemkit's ASGI
IdempotencyMiddleware on FastAPI, with idemkit's PostgresBackend: the setup of
idemkit's README (HTTP section, "For production, swap the backend and add
scope") and examples/shared/backends.py. The route only hands the request to
the shared handler (survey/lib/python)."""

import os
import sys

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from idemkit import HttpConfig, IdempotencyMiddleware
from idemkit.backends.postgres import PostgresBackend
from starlette.concurrency import run_in_threadpool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "python"))
import survey_psp  # noqa: E402

app = FastAPI()
app.add_middleware(
    IdempotencyMiddleware,
    backend=PostgresBackend.from_url(os.environ["SURVEY_POSTGRES_DSN"]),
    # the caller is the bearer token: one namespace of keys per caller
    config=HttpConfig(scope=lambda req: req.headers.get("authorization", "anonymous")),
)


@app.get("/healthz")
async def healthz():
    return {"ok": True}


@app.get("/ledger")
async def ledger(order_id: str):
    return {"data": survey_psp.ledger_rows(order_id)}


@app.post("/payments")
async def create_payment(request: Request):
    auth = request.headers.get("Authorization", "")
    if survey_psp.bearer(auth) is None:
        return JSONResponse({"error": "unauthorized"}, status_code=401)
    try:
        order = survey_psp.parse_body(await request.body())
    except survey_psp.InvalidBody as e:
        return JSONResponse({"error": "invalid body: " + str(e)}, status_code=400)
    status, body = await run_in_threadpool(survey_psp.pay, auth, request.headers.get("Idempotency-Key", ""), order)
    return JSONResponse(body, status_code=status)
