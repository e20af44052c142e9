# Drives fakepsp's Adyen API with Adyen's official Python library, as a
# service would: argv is the base URL (ending in the version) and the API
# key. Prints one JSON line per step: the status, and the fields or the
# error code the library gave back.
import json
import sys

import Adyen
from Adyen.exceptions import AdyenError

base, key = sys.argv[1], sys.argv[2]
adyen = Adyen.Adyen()
adyen.client.xapikey = key
adyen.client.platform = "test"
payments = adyen.checkout.payments_api
mods = adyen.checkout.modifications_api
payments.baseUrl = mods.baseUrl = base

card = {"type": "scheme", "number": "4111111145551142", "expiryMonth": "03", "expiryYear": "2030", "cvc": "737", "holderName": "J Smith"}


def pay(ref, value, key, holder="J Smith", manual=False):
    req = {"amount": {"value": value, "currency": "EUR"}, "reference": ref, "merchantAccount": "IdemcheckECOM",
           "paymentMethod": dict(card, holderName=holder)}
    if manual:
        req["additionalData"] = {"manualCapture": "true"}
    return payments.payments(req, idempotency_key=key)


def step(name, call):
    try:
        r = call()
        m = r.message
        out = {"step": name, "status": r.status_code, "psp": m.get("pspReference", ""), "result": m.get("resultCode", m.get("status", "")),
               "reason": m.get("refusalReason", "")}
    except AdyenError as e:
        out = {"step": name, "status": e.status_code, "error": e.error_code, "class": type(e).__name__}
    print(json.dumps(out), flush=True)
    return out


first = step("pay", lambda: pay("order-1", 1130, "key-1"))
step("pay-again", lambda: pay("order-1", 1130, "key-1"))
step("refused", lambda: pay("order-2", 500, "key-2", holder="REFUSED"))
auth = step("authorise", lambda: pay("order-3", 2000, "key-3", manual=True))
psp = auth.get("psp", "")
step("capture", lambda: mods.capture_authorised_payment({"merchantAccount": "IdemcheckECOM", "amount": {"value": 2000, "currency": "EUR"}}, psp, idempotency_key="key-4"))
step("refund", lambda: mods.refund_captured_payment({"merchantAccount": "IdemcheckECOM", "amount": {"value": 700, "currency": "EUR"}}, psp, idempotency_key="key-5"))
step("no-amount", lambda: payments.payments({"reference": "order-4", "merchantAccount": "IdemcheckECOM", "paymentMethod": card}, idempotency_key="key-6"))
adyen.client.xapikey = "AQEwrong"
step("bad-key", lambda: pay("order-5", 100, "key-7"))
