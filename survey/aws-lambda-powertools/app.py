"""The survey's payment API (survey/CONTRACT.md) in Flask, its charge made
idempotent by Powertools for AWS Lambda (Python)'s @idempotent_function with
the Redis persistence layer (RedisCachePersistenceLayer, here on Valkey): the
setup of the Idempotency docs' "Idempotent_function decorator" and "Redis
database" sections, keyed by the Idempotency-Key header and the caller."""

import os
import sys

from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyAlreadyInProgressError
from aws_lambda_powertools.utilities.idempotency.persistence.redis import RedisCachePersistenceLayer
from flask import Flask, request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "python"))
import survey_psp  # noqa: E402

persistence_layer = RedisCachePersistenceLayer(url=os.environ["SURVEY_VALKEY_URL"])
# The idempotency key is the client's Idempotency-Key scoped by its caller; a
# request without the header has no key (Powertools then runs it unprotected,
# as its docs say for a missing key).
config = IdempotencyConfig(event_key_jmespath="idempotency_key && [caller, idempotency_key]")

app = Flask(__name__)


@idempotent_function(data_keyword_argument="idempotency", config=config, persistence_store=persistence_layer)
def charge(idempotency: dict, payment: dict) -> dict:
    status, body = survey_psp.pay(idempotency["caller"], idempotency["idempotency_key"], payment)
    if status == 502:
        # raised, not returned: Powertools stores what the function returns,
        # and an unknown outcome must not be stored
        raise survey_psp.PSPUnavailable(body["error"])
    return {"status": status, "body": body}


@app.get("/healthz")
def healthz():
    return {"ok": True}


@app.get("/ledger")
def ledger():
    return {"data": survey_psp.ledger_rows(request.args.get("order_id", ""))}


@app.post("/payments")
def create_payment():
    auth = request.headers.get("Authorization", "")
    if survey_psp.bearer(auth) is None:
        return {"error": "unauthorized"}, 401
    try:
        payment = survey_psp.parse_body(request.get_data())
    except survey_psp.InvalidBody as e:
        return {"error": "invalid body: " + str(e)}, 400
    idempotency = {"idempotency_key": request.headers.get("Idempotency-Key"), "caller": auth}
    try:
        result = charge(idempotency=idempotency, payment=payment)
    except survey_psp.PSPUnavailable:
        return {"error": "psp unavailable"}, 502
    except IdempotencyAlreadyInProgressError:
        # the docs: "If you receive IdempotencyAlreadyInProgressError, you can
        # safely retry the operation"
        return {"error": "a request with this idempotency key is in progress"}, 409
    return result["body"], result["status"]
