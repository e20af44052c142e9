package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// DefaultCurrencies are the currencies intents are drawn in: fakepsp accepts
// each, as Stripe does, and JPY has no minor unit (a zero-decimal currency).
var DefaultCurrencies = []string{"USD", "EUR", "GBP", "JPY", "CHF"}

// DefaultPaymentMethods are fakepsp's test payment methods that succeed,
// across card networks and funding types.
var DefaultPaymentMethods = []string{"pm_card_visa", "pm_card_mastercard", "pm_card_amex", "pm_card_discover", "pm_card_visa_debit"}

func (e *Env) currencies() []string {
	if c := e.Cfg.Create.Currencies; len(c) > 0 {
		return c
	}
	return DefaultCurrencies
}

func (e *Env) paymentMethods() []string {
	if p := e.Cfg.Create.PaymentMethods; len(p) > 0 {
		return p
	}
	return DefaultPaymentMethods
}

// drawMeaning fills intent n's currency and payment method from the run's
// seed: a pure function of (seed, run, n), so a replayed seed sends the same
// meanings whatever order concurrent checks draw their intents in. A field
// the template does not send is left empty, so that the history records only
// what the service was told.
func (e *Env) drawMeaning(n int64, m *driver.Meaning) {
	r := e.Rand(fmt.Sprintf("meaning-%d-%d", e.Run, n))
	cur, pms := e.currencies(), e.paymentMethods()
	m.Currency, m.PaymentMethod = cur[r.IntN(len(cur))], pms[r.IntN(len(pms))]
	if !e.Cfg.Create.Uses("currency") {
		m.Currency = ""
	}
	if !e.Cfg.Create.Uses("payment_method") {
		m.PaymentMethod = ""
	}
}

// MeaningFields are the fields a mismatch changes, one at a time: the
// create's meaning (config.Request.MeaningFields) less those that cannot be
// changed here (a currency or payment method with one value configured).
// Skipped says which were left out and why.
func (e *Env) MeaningFields() (fields []string, skipped map[string]string) {
	skipped = map[string]string{}
	for _, f := range e.Cfg.Create.MeaningFields() {
		switch {
		case f == "currency" && len(e.currencies()) < 2:
			skipped[f] = "create.currencies lists one currency, so no request can differ from another by currency alone"
		case f == "payment_method" && len(e.paymentMethods()) < 2:
			skipped[f] = "create.payment_methods lists one payment method, so no request can differ from another by it alone"
		default:
			fields = append(fields, f)
		}
	}
	return fields, skipped
}

// Changed returns in with one meaning field changed and every other field
// as it was: the request a service must refuse under in's key (A5). The new
// order id contains the old one, so a charge made for it is attributed to
// in's order.
func (e *Env) Changed(in Intent, field string) Intent {
	out := in
	m := &out.Meaning
	switch field {
	case "order_id":
		m.OrderID = in.Meaning.OrderID + "-changed"
	case "amount":
		m.Amount = e.NewIntent(in.Caller).Meaning.Amount // an amount no other intent uses
	case "currency":
		m.Currency = next(e.currencies(), in.Meaning.Currency)
	case "payment_method":
		m.PaymentMethod = next(e.paymentMethods(), in.Meaning.PaymentMethod)
	default:
		raw := config.LiteralMembers(e.Cfg.Create.Body)[field]
		m.Literal = driver.Literal{Field: field, Raw: driver.ChangeLiteral(raw)}
	}
	return out
}

// next is the value after v in vals (the first when v is not among them).
func next(vals []string, v string) string {
	i := slices.IndexFunc(vals, func(x string) bool { return strings.EqualFold(x, v) })
	return vals[(i+1)%len(vals)]
}

// ChangedField names the meaning field in which b differs from a, with both
// values, for a finding: "currency EUR, then GBP".
func ChangedField(a, b driver.Meaning) string {
	switch {
	case a.Literal != b.Literal:
		return fmt.Sprintf("%s changed to %s", b.Literal.Field, b.Literal.Raw)
	case a.OrderID != b.OrderID:
		return fmt.Sprintf("order_id %s, then %s", a.OrderID, b.OrderID)
	case a.Amount != b.Amount:
		return fmt.Sprintf("amount %d, then %d", a.Amount, b.Amount)
	case !strings.EqualFold(a.Currency, b.Currency):
		return fmt.Sprintf("currency %s, then %s", a.Currency, b.Currency)
	case a.PaymentMethod != b.PaymentMethod:
		return fmt.Sprintf("payment_method %s, then %s", a.PaymentMethod, b.PaymentMethod)
	}
	return "no meaning field changed"
}
