package fakepsp

import (
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// The fields of each object come from stripe-go's own structs (their json
// tags), so upgrading stripe-go names every field fakepsp does not send yet.

// jsonKeys are the json names of a struct's fields.
func jsonKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// conditional are the fields Stripe sends only in some answers, so an
// answer without them is Stripe's answer too; each says when.
var conditional = map[reflect.Type]map[string]string{
	reflect.TypeFor[stripe.Charge]():          {"refunds": "includable only (expand[]=refunds) since API 2022-11-15"},
	reflect.TypeFor[stripe.Customer]():        {"deleted": "only on a deleted customer", "cash_balance": "includable only", "invoice_credit_balance": "includable only", "sources": "includable only since 2020-08-27", "subscriptions": "includable only since 2020-08-27", "tax": "includable only", "tax_ids": "includable only"},
	reflect.TypeFor[stripe.WebhookEndpoint](): {"deleted": "only on a deleted endpoint", "secret": "only in the answer that creates it"},
	reflect.TypeFor[stripe.Event]():           {"account": "Connect events only", "context": "events of an Organization's accounts only"},
	reflect.TypeFor[stripe.EventData]():       {"previous_attributes": "*.updated events only"},
	reflect.TypeFor[stripe.ListMeta]():        {"total_count": "only with include[]=total_count"},
	reflect.TypeFor[stripe.SearchMeta]():      {"total_count": "only with include[]=total_count"},
}

// cardErrorFields: a card error's fields; the others belong to other errors
// (param to a parameter's, setup_intent to a SetupIntent's, error and
// error_description to OAuth's, status and request_id are the library's).
var cardErrorFields = []string{"charge", "code", "decline_code", "doc_url", "message", "payment_intent", "payment_method", "request_log_url", "type"}

// wantShape fails on every key of typ that obj lacks and every key obj has
// that typ does not declare.
func wantShape(t *testing.T, what string, obj any, typ reflect.Type, skip ...string) {
	t.Helper()
	m, isMap := obj.(map[string]any)
	if !isMap {
		t.Errorf("%s: not an object: %v", what, obj)
		return
	}
	declared := jsonKeys(typ)
	var missing, extra []string
	for _, k := range declared {
		if _, has := m[k]; !has && conditional[typ][k] == "" && !slices.Contains(skip, k) {
			missing = append(missing, k)
		}
	}
	for k := range m {
		if !slices.Contains(declared, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s: fields stripe-go %s declares are missing: %v", what, typ.Name(), missing)
	}
	if len(extra) > 0 {
		t.Errorf("%s: fields stripe-go %s does not declare: %v", what, typ.Name(), extra)
	}
}

func sub(obj any, path ...string) any {
	for _, k := range path {
		m, _ := obj.(map[string]any)
		obj = m[k]
	}
	return obj
}

// otherMethodTypes are a PaymentMethod's per-type fields other than card:
// Stripe sends only the hash of the method's own type.
func otherMethodTypes() []string {
	var out []string
	ty := reflect.TypeFor[stripe.PaymentMethod]()
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() == reflect.Pointer && strings.HasPrefix(f.Type.Elem().Name(), "PaymentMethod") &&
			!oneOf(name, []string{"card", "billing_details", "radar_options", "customer"}) {
			out = append(out, name)
		}
	}
	return out
}

func TestEveryObjectHasEveryField(t *testing.T) {
	p := start(t, Config{})
	rcv := newReceiver(t)
	ep := form(t, p, "/v1/webhook_endpoints", "", url.Values{"url": {rcv.server.URL}, "enabled_events[]": {"*"}})
	wantStatus(t, "endpoint", ep, 200)
	cu := form(t, p, "/v1/customers", "", url.Values{"email": {"a@example.com"}})
	wantStatus(t, "customer", cu, 200)
	v := payment("1000", "pm_card_visa", "pay_shape")
	v.Set("customer", cu.str("id"))
	v.Set("currency", "eur")
	pi := form(t, p, "/v1/payment_intents", "k1", v)
	wantStatus(t, "charge", pi, 200)
	rf := form(t, p, "/v1/refunds", "k2", url.Values{"payment_intent": {pi.str("id")}, "amount": {"300"}})
	wantStatus(t, "refund", rf, 200)
	dec := form(t, p, "/v1/payment_intents", "k3", payment("500", "pm_card_chargeDeclinedInsufficientFunds", "pay_dec"))
	wantStatus(t, "decline", dec, 402)
	declined := get(t, p, "/v1/payment_intents/"+sub(dec.body, "error", "payment_intent", "id").(string))
	ch := get(t, p, "/v1/charges/"+sub(pi.body, "latest_charge").(string)+"?expand[]=balance_transaction")
	failed := get(t, p, "/v1/charges/"+sub(declined.body, "latest_charge").(string))
	pm := get(t, p, "/v1/payment_methods/pm_card_visa")
	rfx := get(t, p, "/v1/refunds/"+rf.str("id")+"?expand[]=balance_transaction")
	events := get(t, p, "/v1/events?limit=100")
	search := get(t, p, "/v1/payment_intents/search?query="+url.QueryEscape("status:'succeeded'"))
	eps := get(t, p, "/v1/webhook_endpoints")

	T := func(x any) reflect.Type { return reflect.TypeOf(x) }
	wantShape(t, "payment_intent", pi.body, T(stripe.PaymentIntent{}))
	wantShape(t, "declined payment_intent", declined.body, T(stripe.PaymentIntent{}))
	wantShape(t, "charge", ch.body, T(stripe.Charge{}))
	wantShape(t, "failed charge", failed.body, T(stripe.Charge{}))
	for what, c := range map[string]answer{"charge": ch, "failed charge": failed} {
		wantShape(t, what+" billing_details", sub(c.body, "billing_details"), T(stripe.ChargeBillingDetails{}))
		wantShape(t, what+" outcome", sub(c.body, "outcome"), T(stripe.ChargeOutcome{}))
		wantShape(t, what+" payment_method_details", sub(c.body, "payment_method_details"), T(stripe.ChargePaymentMethodDetails{}), otherChargeMethodTypes()...)
		wantShape(t, what+" card", sub(c.body, "payment_method_details", "card"), T(stripe.ChargePaymentMethodDetailsCard{}))
		wantShape(t, what+" card checks", sub(c.body, "payment_method_details", "card", "checks"), T(stripe.ChargePaymentMethodDetailsCardChecks{}))
	}
	wantShape(t, "charge balance_transaction", sub(ch.body, "balance_transaction"), T(stripe.BalanceTransaction{}))
	wantShape(t, "fee detail", sub(ch.body, "balance_transaction", "fee_details").([]any)[0], T(stripe.BalanceTransactionFeeDetail{}))
	wantShape(t, "refund", rf.body, T(stripe.Refund{}))
	wantShape(t, "refund balance_transaction", sub(rfx.body, "balance_transaction"), T(stripe.BalanceTransaction{}))
	wantShape(t, "customer", cu.body, T(stripe.Customer{}))
	wantShape(t, "customer invoice_settings", sub(cu.body, "invoice_settings"), T(stripe.CustomerInvoiceSettings{}))
	wantShape(t, "payment_method", pm.body, T(stripe.PaymentMethod{}), otherMethodTypes()...)
	wantShape(t, "payment_method card", sub(pm.body, "card"), T(stripe.PaymentMethodCard{}))
	wantShape(t, "payment_method billing_details", sub(pm.body, "billing_details"), T(stripe.PaymentMethodBillingDetails{}))
	wantShape(t, "webhook_endpoint", ep.body, T(stripe.WebhookEndpoint{}))
	wantShape(t, "listed webhook_endpoint", sub(eps.body, "data").([]any)[0], T(stripe.WebhookEndpoint{}), "secret")
	evData := sub(events.body, "data").([]any)
	delete(events.body, "data")
	delete(events.body, "object")
	wantShape(t, "list envelope", events.body, T(stripe.ListMeta{}))
	delete(search.body, "data")
	delete(search.body, "object")
	wantShape(t, "search_result envelope", search.body, T(stripe.SearchMeta{}))

	// Every event, and the object it carries, whatever its type.
	seen := map[string]bool{}
	for _, x := range evData {
		typ := sub(x, "type").(string)
		seen[typ] = true
		wantShape(t, typ+" event", x, T(stripe.Event{}))
		wantShape(t, typ+" event request", sub(x, "request"), T(stripe.EventRequest{}))
		wantShape(t, typ+" event data", sub(x, "data"), T(stripe.EventData{}))
		obj := sub(x, "data", "object")
		switch o := sub(obj, "object"); o {
		case "payment_intent":
			wantShape(t, typ+" payment_intent", obj, T(stripe.PaymentIntent{}))
		case "charge":
			wantShape(t, typ+" charge", obj, T(stripe.Charge{}))
		case "refund":
			wantShape(t, typ+" refund", obj, T(stripe.Refund{}))
		default:
			t.Errorf("%s: object %v", typ, o)
		}
	}
	for _, typ := range []string{"payment_intent.created", "payment_intent.succeeded", "charge.succeeded", "charge.refunded",
		"refund.created", "charge.failed", "payment_intent.payment_failed"} {
		if !seen[typ] {
			t.Errorf("no %s event among %v", typ, seen)
		}
	}

	// A card error carries a card error's fields, and its intent and
	// payment method are whole objects.
	e := sub(dec.body, "error").(map[string]any)
	for _, k := range cardErrorFields {
		if _, has := e[k]; !has {
			t.Errorf("card error lacks %s: %v", k, e)
		}
	}
	wantShape(t, "card error", e, T(stripe.Error{}), jsonKeysExcept(T(stripe.Error{}), cardErrorFields)...)
	wantShape(t, "card error payment_intent", e["payment_intent"], T(stripe.PaymentIntent{}))
	lpe := sub(declined.body, "last_payment_error")
	wantShape(t, "last_payment_error", lpe, T(stripe.Error{}), append(jsonKeysExcept(T(stripe.Error{}), cardErrorFields), "payment_intent", "request_log_url")...)
	if _, has := lpe.(map[string]any)["payment_intent"]; has {
		t.Errorf("last_payment_error carries a payment_intent (Stripe's does not: the intent holds it): %v", lpe)
	}
	wantShape(t, "card error payment_method", e["payment_method"], T(stripe.PaymentMethod{}), otherMethodTypes()...)
}

// otherChargeMethodTypes are a charge's payment_method_details hashes other
// than card's.
func otherChargeMethodTypes() []string {
	return jsonKeysExcept(reflect.TypeFor[stripe.ChargePaymentMethodDetails](), []string{"card", "type"})
}

func jsonKeysExcept(t reflect.Type, keep []string) []string {
	var out []string
	for _, k := range jsonKeys(t) {
		if !slices.Contains(keep, k) {
			out = append(out, k)
		}
	}
	return out
}
