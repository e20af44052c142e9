"""The survey's payment API (survey/CONTRACT.md) as plain Django views.

POST /payments is protected by IdempotencyKeyMiddleware (settings.py); the
view only hands the request to the shared handler (survey/lib/python).
"""
import os
import sys

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib", "python"))
import survey_psp  # noqa: E402


@require_GET
def healthz(request):
    return JsonResponse({"ok": True})


@require_POST
def payments(request):
    auth = request.headers.get("Authorization", "")
    if survey_psp.bearer(auth) is None:
        return JsonResponse({"error": "unauthorized"}, status=401)
    try:
        order = survey_psp.parse_body(request.body)
    except survey_psp.InvalidBody as e:
        return JsonResponse({"error": "invalid body: " + str(e)}, status=400)
    status, body = survey_psp.pay(auth, request.headers.get("Idempotency-Key", ""), order)
    return JsonResponse(body, status=status)


@require_GET
def ledger(request):
    return JsonResponse({"data": survey_psp.ledger_rows(request.GET.get("order_id"))})
