"""The survey's payment API (survey/CONTRACT.md) as a FastAPI app.

IdempotencyHeaderMiddleware wraps the app as asgi-idempotency-header's README
sets it up (the `middleware=[Middleware(...)]` form), with every argument left
at its default, on its RedisBackend (redis-py's asyncio client, which the
backend imports) against $SURVEY_VALKEY_URL. The route only hands the request
to the shared handler (survey/lib/python).
"""
import os
import sys

from fastapi import FastAPI, Request
from fastapi.middleware import Middleware
from fastapi.responses import JSONResponse
from redis.asyncio import from_url
from starlette.concurrency import run_in_threadpool

from idempotency_header_middleware import IdempotencyHeaderMiddleware
from idempotency_header_middleware.backends import RedisBackend

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "python"))
import survey_psp  # noqa: E402

redis = from_url(os.environ["SURVEY_VALKEY_URL"])
backend = RedisBackend(redis=redis)

app = FastAPI(
    middleware=[
        Middleware(
            IdempotencyHeaderMiddleware,
            backend=backend,
        )
    ]
)


@app.get("/healthz")
async def healthz():
    return {"ok": True}


@app.post("/payments")
async def payments(request: Request):
    auth = request.headers.get("Authorization", "")
    if survey_psp.bearer(auth) is None:
        return JSONResponse({"error": "unauthorized"}, status_code=401)
    try:
        order = survey_psp.parse_body(await request.body())
    except survey_psp.InvalidBody as e:
        return JSONResponse({"error": "invalid body: " + str(e)}, status_code=400)
    status, body = await run_in_threadpool(survey_psp.pay, auth, request.headers.get("Idempotency-Key", ""), order)
    return JSONResponse(body, status_code=status)


@app.get("/ledger")
async def ledger(order_id: str = ""):
    return {"data": survey_psp.ledger_rows(order_id)}
