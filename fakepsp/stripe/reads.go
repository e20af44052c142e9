package stripe

import (
	"net/http"
	"slices"
	"strings"
)

// The reads a Stripe library makes while it processes a payment or a
// webhook (syncing the objects an event names): the account, the payment
// method, the charge's balance transaction, the customer. Each answers only
// for an object this account has or names, as Stripe does; anything else is
// the 404 Stripe gives.

// json is the account behind a secret key: a test-mode standard
// account that can take charges.
func (a *account) json() map[string]any {
	return map[string]any{
		"id": a.id, "object": "account", "type": "standard", "country": "US", "default_currency": "usd",
		"charges_enabled": true, "payouts_enabled": true, "details_submitted": true, "email": nil,
		"business_profile": map[string]any{"name": nil, "url": nil}, "capabilities": map[string]any{"card_payments": "active"},
		"metadata": map[string]string{}, "livemode": false,
	}
}

func (p *API) retrieveAccount(c *call) response { return ok(c.acct.json()) }

// retrieveMethod answers for Stripe's test payment methods and for any
// payment method an intent of this account was given (the fake keeps the id
// it was given where Stripe would have minted a pm_ of its own; its card is
// then the default test Visa).
func (p *API) retrieveMethod(c *call) response {
	id := c.r.PathValue("id")
	known := IsTestCard(id)
	if !known {
		p.mu.Lock()
		err := c.acct.intents.each(func(pi *Intent) bool {
			known = pi.Method == id
			return !known
		})
		p.mu.Unlock()
		if err != nil {
			return storageError(err)
		}
	}
	if !known {
		return notFound("payment_method", "PaymentMethod", id)
	}
	return ok(MethodJSON(id))
}

// customer is a Customer object the account created.
type customer struct {
	id, email, name, description string
	metadata                     map[string]string
	created                      int64
}

func (cu *customer) json() map[string]any {
	return Fill(map[string]any{"id": cu.id, "object": "customer", "email": OrNull(cu.email), "name": OrNull(cu.name),
		"description": OrNull(cu.description), "metadata": NonNil(cu.metadata), "created": cu.created, "livemode": false,
		"balance": 0, "delinquent": false, "invoice_prefix": strings.ToUpper(cu.id[len(cu.id)-8:]), "next_invoice_sequence": 1,
		"invoice_settings":  map[string]any{"custom_fields": nil, "default_payment_method": nil, "footer": nil, "rendering_options": nil},
		"preferred_locales": []string{}, "tax_exempt": "none"}, CustomerNulls)
}

func (p *API) createCustomer(c *call) response {
	md, bad := c.params.Metadata()
	if bad != nil {
		return *bad
	}
	c.begin()
	cu := &customer{id: newID("cus"), email: c.params.Str("email"), name: c.params.Str("name"),
		description: c.params.Str("description"), metadata: md}
	p.mu.Lock()
	defer p.mu.Unlock()
	cu.created = p.nowLocked().Unix()
	c.acct.customers[cu.id] = cu
	c.acct.cusSeq = append(c.acct.cusSeq, cu)
	return ok(cu.json())
}

func (p *API) retrieveCustomer(c *call) response {
	id := c.r.PathValue("id")
	p.mu.Lock()
	defer p.mu.Unlock()
	if cu := c.acct.customers[id]; cu != nil {
		return ok(cu.json())
	}
	return notFound("id", "customer", id)
}

// customerParam checks an intent's customer: one this account created.
func (p *API) customerParam(c *call) (string, *response) {
	id := c.params.Str("customer")
	if id == "" {
		return "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.acct.customers[id] == nil {
		r := errResp(http.StatusBadRequest, Error{Type: "invalid_request_error", Code: "resource_missing", Param: "customer",
			Message: "No such customer: '" + id + "'"})
		return "", &r
	}
	return id, nil
}

// listCustomers lists customers, newest first, optionally of one email
// (GET /v1/customers).
func (p *API) listCustomers(c *call) response {
	email := c.params.Str("email")
	p.mu.Lock()
	defer p.mu.Unlock()
	var items []any
	var ids []string
	for i := len(c.acct.cusSeq) - 1; i >= 0; i-- {
		if cu := c.acct.cusSeq[i]; email == "" || cu.email == email {
			items, ids = append(items, cu.json()), append(ids, cu.id)
		}
	}
	return paginate(c, "/v1/customers", ids, items)
}

// listMethods lists the card payment methods this account's intents used,
// newest first (GET /v1/payment_methods). fakepsp attaches no payment
// method to a customer, so a customer's list is empty, as Stripe's is for
// a customer with none attached.
func (p *API) listMethods(c *call) response {
	cus, typ := c.params.Str("customer"), c.params.Str("type")
	p.mu.Lock()
	defer p.mu.Unlock()
	if cus != "" && c.acct.customers[cus] == nil {
		return notFound("customer", "customer", cus)
	}
	var items []any
	var ids []string
	if cus == "" && (typ == "" || typ == "card") {
		err := c.acct.intents.each(func(pi *Intent) bool {
			if pm := pi.Method; pm != "" && !slices.Contains(ids, pm) {
				items, ids = append(items, MethodJSON(pm)), append(ids, pm)
			}
			return true
		})
		if err != nil {
			return storageError(err)
		}
	}
	return paginate(c, "/v1/payment_methods", ids, items)
}
