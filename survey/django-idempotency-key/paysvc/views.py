"""The survey's payment API (survey/CONTRACT.md) as plain Django views.

POST /payments is protected by IdempotencyKeyMiddleware (settings.py); the
view itself only charges the PSP and records the charge.
"""
import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

PSP_URL = os.environ["PSP_URL"].rstrip("/")
PSP_KEY = os.environ["PSP_KEY"]
LEDGER = os.path.join(os.environ["STATE_DIR"], "ledger.jsonl")


class PSPUnavailable(Exception):
    """The PSP answered a 5xx (or anything but 200 or 402), or no answer came."""


def charge(key, order_id, amount, currency, payment_method):
    """POST /v1/payment_intents once (no retry); returns (status, body)."""
    form = urllib.parse.urlencode({
        "amount": str(amount),
        "currency": currency.lower(),
        "payment_method": payment_method,
        "confirm": "true",
        "metadata[order_id]": order_id,
    }).encode()
    headers = {"Authorization": "Bearer " + PSP_KEY, "Content-Type": "application/x-www-form-urlencoded"}
    if key:
        headers["Idempotency-Key"] = key
    req = urllib.request.Request(PSP_URL + "/v1/payment_intents", data=form, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        if e.code == 402:
            return 402, None
        raise PSPUnavailable(f"psp answered {e.code}") from e
    except (OSError, ValueError) as e:  # timeout, cut connection, a body that is not JSON
        raise PSPUnavailable(str(e)) from e


def append_ledger(row):
    fd = os.open(LEDGER, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(row) + "\n").encode())
    finally:
        os.close(fd)


@require_GET
def healthz(request):
    return JsonResponse({"ok": True})


@require_POST
def payments(request):
    auth = request.headers.get("Authorization", "")
    if not auth.startswith("Bearer ") or not auth[len("Bearer "):].strip():
        return JsonResponse({"error": "unauthorized"}, status=401)
    try:
        body = json.loads(request.body)
        order_id, amount = str(body["order_id"]), body["amount"]
        currency, payment_method = str(body["currency"]), str(body["payment_method"])
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
            raise ValueError("amount must be a positive integer")
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": "invalid body"}, status=400)
    key = request.headers.get("Idempotency-Key", "")
    pay_id = "pay_" + secrets.token_hex(8)
    try:
        status, pi = charge(key, order_id, amount, currency, payment_method)
    except PSPUnavailable:
        return JsonResponse({"error": "psp unavailable"}, status=502)
    if status == 402:
        return JsonResponse({"id": pay_id, "order_id": order_id, "status": "failed"}, status=402)
    if not isinstance(pi, dict) or pi.get("status") != "succeeded":
        return JsonResponse({"error": "psp unavailable"}, status=502)
    append_ledger({"order_id": order_id, "payment_id": pay_id, "amount": amount, "psp_id": pi["id"]})
    return JsonResponse({"id": pay_id, "order_id": order_id, "amount": amount, "currency": currency,
                         "status": "succeeded", "psp_id": pi["id"]}, status=201)


@require_GET
def ledger(request):
    order_id = request.GET.get("order_id")
    rows = []
    try:
        with open(LEDGER, encoding="utf-8") as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a kill
                if row.get("order_id") == order_id:
                    rows.append(row)
    except FileNotFoundError:
        pass
    return JsonResponse({"data": rows})
