package fakepsp

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// stressAcct is one account of TestIntentCacheStress: its key and the
// intents its lifecycles made, by lifecycle kind.
type stressAcct struct {
	p    *PSP
	sk   string
	tag  string
	mu   sync.Mutex
	kind map[string]int // intent id -> lifecycle kind
}

func (a *stressAcct) send(t *testing.T, method, path, key string, v url.Values) answer {
	t.Helper()
	body, ct := "", ""
	if method == http.MethodPost {
		body, ct = v.Encode(), "application/x-www-form-urlencoded"
	} else if len(v) > 0 {
		path += "?" + v.Encode()
	}
	r, err := do(t, client(10*time.Second), method, a.p.URL()+path, a.sk, key, ct, body)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
	}
	return r
}

// want fails the test (from any goroutine) unless r has status.
func want(t *testing.T, what string, r answer, status int) bool {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: %d %s; want %d", what, r.status, r.raw, status)
		return false
	}
	return true
}

// lifecycle runs one intent of kind k (0..3) to its end:
//
//	0: charged 1000, refunded 300 by intent and 200 by charge, metadata updated
//	1: authorized 1000, captured 600, the rest refunded (a whole refund)
//	2: declined, then confirmed with a good card
//	3: created without a method, updated (amount 2000, a method), canceled
func (a *stressAcct) lifecycle(t *testing.T, k int, name string) {
	key := func(step string) string { return a.tag + "-" + name + "-" + step }
	v := url.Values{"amount": {"1000"}, "currency": {"usd"}, "metadata[run]": {a.tag}, "metadata[name]": {name}}
	switch k {
	case 0, 1:
		v.Set("confirm", "true")
		v.Set("payment_method", "pm_card_visa")
		if k == 1 {
			v.Set("capture_method", "manual")
		}
	case 2:
		v.Set("confirm", "true")
		v.Set("payment_method", "pm_card_chargeDeclined")
	}
	r := a.send(t, http.MethodPost, "/v1/payment_intents", key("create"), v)
	id := r.str("id")
	if k == 2 {
		if !want(t, "declined create", r, 402) {
			return
		}
		pi, _ := r.body["error"].(map[string]any)["payment_intent"].(map[string]any)
		id, _ = pi["id"].(string)
	} else if !want(t, "create", r, 200) {
		return
	}
	a.mu.Lock()
	a.kind[id] = k
	a.mu.Unlock()
	base := "/v1/payment_intents/" + id
	switch k {
	case 0:
		// Three requests on the one intent at once: each pins it, and none
		// of their changes may land on a copy.
		var wg sync.WaitGroup
		wg.Add(3)
		go func() {
			defer wg.Done()
			want(t, "refund by intent", a.send(t, http.MethodPost, "/v1/refunds", key("r1"), url.Values{"payment_intent": {id}, "amount": {"300"}}), 200)
		}()
		go func() {
			defer wg.Done()
			ch := r.str("latest_charge")
			want(t, "refund by charge", a.send(t, http.MethodPost, "/v1/refunds", key("r2"), url.Values{"charge": {ch}, "amount": {"200"}}), 200)
		}()
		go func() {
			defer wg.Done()
			want(t, "update", a.send(t, http.MethodPost, base, key("u"), url.Values{"metadata[step]": {"updated"}}), 200)
		}()
		wg.Wait()
	case 1:
		want(t, "capture", a.send(t, http.MethodPost, base+"/capture", key("cap"), url.Values{"amount_to_capture": {"600"}}), 200)
		want(t, "whole refund", a.send(t, http.MethodPost, "/v1/refunds", key("r"), url.Values{"payment_intent": {id}}), 200)
	case 2:
		want(t, "confirm", a.send(t, http.MethodPost, base+"/confirm", key("conf"), url.Values{"payment_method": {"pm_card_visa"}}), 200)
	case 3:
		want(t, "update", a.send(t, http.MethodPost, base, key("u"), url.Values{"amount": {"2000"}, "payment_method": {"pm_card_visa"}, "metadata[step]": {"updated"}}), 200)
		want(t, "cancel", a.send(t, http.MethodPost, base+"/cancel", key("x"), url.Values{"cancellation_reason": {"abandoned"}}), 200)
	}
	// A replay of the create answers as the first time did.
	if again := a.send(t, http.MethodPost, "/v1/payment_intents", key("create"), v); string(again.raw) != string(r.raw) {
		t.Errorf("create %s replayed as %d %s; first %d %s", name, again.status, again.raw, r.status, r.raw)
	}
}

// reads are the reads a service makes while payments run; each must
// answer 200 however the cache stands.
func (a *stressAcct) reads(t *testing.T, i int) {
	paths := []string{
		"/v1/payment_intents/search?" + url.Values{"query": {"metadata['run']:'" + a.tag + "'"}}.Encode(),
		"/v1/events?limit=7",
		"/v1/payment_intents?limit=5",
		"/v1/charges?limit=5",
		"/v1/balance_transactions?limit=3",
		"/v1/refunds?limit=4&expand[]=data.payment_intent",
		"/v1/payment_methods",
	}
	for _, p := range paths[i%len(paths):] {
		want(t, "GET "+p, a.send(t, http.MethodGet, p, "", nil), 200)
	}
}

// all pages through a list with starting_after and returns its ids.
func (a *stressAcct) all(t *testing.T, path string, q url.Values) []string {
	t.Helper()
	var ids []string
	for {
		q.Set("limit", "100")
		r := a.send(t, http.MethodGet, path, "", q)
		if !want(t, "GET "+path, r, 200) {
			return nil
		}
		data, _ := r.body["data"].([]any)
		for _, d := range data {
			ids = append(ids, d.(map[string]any)["id"].(string))
		}
		if r.body["has_more"] != true {
			return ids
		}
		q.Set("starting_after", ids[len(ids)-1])
	}
}

// TestIntentCacheStress: two PSPs in one process (newID's sequence is
// shared), two accounts each, every account keeping one intent in memory;
// lifecycles of every kind race with each other and with searches and
// lists. Afterwards every intent, charge, refund and event is exactly what
// the lifecycles made, on every path that reads them.
func TestIntentCacheStress(t *testing.T) {
	const workers, perWorker = 4, 8
	var accts []*stressAcct
	for pn := range 2 {
		p := start(t, Config{})
		p.api.(*stripe.API).KeepIntents(1)
		for an, sk := range []string{p.SecretKey(), p.NewAccount()} {
			accts = append(accts, &stressAcct{p: p, sk: sk, tag: fmt.Sprintf("p%da%d", pn, an), kind: map[string]int{}})
		}
	}
	var wg sync.WaitGroup
	for _, a := range accts {
		for w := range workers {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range perWorker {
					a.lifecycle(t, (w+i)%4, fmt.Sprintf("w%di%d", w, i))
				}
			}()
			go func() {
				defer wg.Done()
				for i := range perWorker {
					a.reads(t, w+i)
				}
			}()
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	const n = workers * perWorker // intents per account, n/4 of each kind
	for _, a := range accts {
		a.check(t, n)
	}
	for _, p := range []*PSP{accts[0].p, accts[2].p} {
		// kinds 0 and 2 charge at confirmation, 1 at capture; kind 0 and 1
		// each refund twice and once.
		if got := len(p.Charges()); got != 2*3*n/4 {
			t.Errorf("ground truth: %d charges, want %d", got, 2*3*n/4)
		}
		if got := len(p.Refunds()); got != 2*3*n/4 {
			t.Errorf("ground truth: %d refunds, want %d", got, 2*3*n/4)
		}
		if err := p.ReadError(); err != nil {
			t.Errorf("ReadError: %v", err)
		}
	}
}

// stressEnd is what a lifecycle of each kind leaves: the intent's status,
// amount, amount_received, its charge's amount_refunded, and its events
// by type.
var stressEnd = [4]struct {
	status                     string
	amount, received, refunded float64
	events                     map[string]int
}{
	{"succeeded", 1000, 1000, 500, map[string]int{"payment_intent.created": 1, "charge.succeeded": 1, "payment_intent.succeeded": 1,
		"charge.refunded": 2, "refund.created": 2}},
	{"succeeded", 1000, 600, 1000, map[string]int{"payment_intent.created": 1, "charge.succeeded": 1,
		"payment_intent.amount_capturable_updated": 1, "charge.captured": 1, "payment_intent.succeeded": 1,
		"charge.refunded": 1, "refund.created": 1}},
	{"succeeded", 1000, 1000, 0, map[string]int{"payment_intent.created": 1, "charge.failed": 1,
		"payment_intent.payment_failed": 1, "charge.succeeded": 1, "payment_intent.succeeded": 1}},
	{"canceled", 2000, 0, 0, map[string]int{"payment_intent.created": 1, "payment_intent.canceled": 1}},
}

func (a *stressAcct) check(t *testing.T, n int) {
	t.Helper()
	if len(a.kind) != n {
		t.Fatalf("%s: %d intents made, want %d", a.tag, len(a.kind), n)
	}
	byType := map[string]int{}
	for id, k := range a.kind {
		end := stressEnd[k]
		r := a.send(t, http.MethodGet, "/v1/payment_intents/"+id, "", url.Values{"expand[]": {"latest_charge"}})
		md, _ := r.body["metadata"].(map[string]any)
		ch, _ := r.body["latest_charge"].(map[string]any)
		if r.status != 200 || r.str("status") != end.status || r.body["amount"] != end.amount || r.body["amount_received"] != end.received ||
			md["run"] != a.tag || (k == 0 || k == 3) != (md["step"] == "updated") {
			t.Errorf("%s: intent %s of kind %d: %d %s", a.tag, id, k, r.status, r.raw)
		}
		if (k != 3) != (ch != nil) || ch != nil && (ch["amount_refunded"] != end.refunded || ch["status"] != "succeeded") {
			t.Errorf("%s: charge of %s (kind %d): %v", a.tag, id, k, ch)
		}
		got := map[string]int{}
		for _, e := range a.p.WebhookEvents(id) {
			got[e.Type]++
		}
		if fmt.Sprint(got) != fmt.Sprint(end.events) {
			t.Errorf("%s: events about %s (kind %d): %v, want %v", a.tag, id, k, got, end.events)
		}
		for typ, c := range end.events {
			byType[typ] += c
		}
	}
	total := 0
	for _, c := range byType {
		total += c
	}
	events := a.all(t, "/v1/events", url.Values{})
	if len(events) != total || !distinct(events) {
		t.Errorf("%s: %d events listed (distinct %v), want %d", a.tag, len(events), distinct(events), total)
	}
	for typ, c := range byType {
		if got := a.all(t, "/v1/events", url.Values{"type": {typ}}); len(got) != c {
			t.Errorf("%s: %d %s events listed, want %d", a.tag, len(got), typ, c)
		}
	}
	// Back from the oldest with ending_before: the same events.
	if len(events) > 0 {
		var back []string
		cursor := events[len(events)-1]
		for {
			r := a.send(t, http.MethodGet, "/v1/events", "", url.Values{"limit": {"100"}, "ending_before": {cursor}})
			data, _ := r.body["data"].([]any)
			if r.status != 200 || len(data) == 0 {
				break
			}
			for i := len(data) - 1; i >= 0; i-- {
				back = append(back, data[i].(map[string]any)["id"].(string))
			}
			cursor = back[len(back)-1]
			if r.body["has_more"] != true {
				break
			}
		}
		if len(back) != len(events)-1 {
			t.Errorf("%s: ending_before from the oldest event walks %d events, want %d", a.tag, len(back), len(events)-1)
		}
		for i, id := range back {
			if events[len(events)-2-i] != id {
				t.Errorf("%s: event %d from the oldest is %s going back, %s going forward", a.tag, i, id, events[len(events)-2-i])
				break
			}
		}
	}
	intents := a.all(t, "/v1/payment_intents", url.Values{})
	if len(intents) != n || !distinct(intents) {
		t.Errorf("%s: %d intents listed (distinct %v), want %d", a.tag, len(intents), distinct(intents), n)
	}
	// Successful charges: kinds 0, 1, 2; failed: kind 2's decline.
	if got := a.all(t, "/v1/charges", url.Values{}); len(got) != n || !distinct(got) {
		t.Errorf("%s: %d charges listed, want %d", a.tag, len(got), n)
	}
	if got := a.all(t, "/v1/refunds", url.Values{}); len(got) != 3*n/4 || !distinct(got) {
		t.Errorf("%s: %d refunds listed, want %d", a.tag, len(got), 3*n/4)
	}
	// A balance transaction per captured charge and per refund.
	if got := a.all(t, "/v1/balance_transactions", url.Values{}); len(got) != 3*n/4+3*n/4 || !distinct(got) {
		t.Errorf("%s: %d balance transactions listed, want %d", a.tag, len(got), 3*n/2)
	}
	for _, q := range []struct {
		query string
		n     int
	}{{"status:'succeeded'", 3 * n / 4}, {"status:'canceled'", n / 4}, {"metadata['step']:'updated'", n / 2}} {
		var found []string
		page := ""
		for {
			v := url.Values{"query": {q.query}, "limit": {"100"}}
			if page != "" {
				v.Set("page", page)
			}
			r := a.send(t, http.MethodGet, "/v1/payment_intents/search", "", v)
			data, _ := r.body["data"].([]any)
			for _, d := range data {
				found = append(found, d.(map[string]any)["id"].(string))
			}
			if r.status != 200 || r.body["has_more"] != true {
				break
			}
			page, _ = r.body["next_page"].(string)
		}
		if len(found) != q.n || !distinct(found) {
			t.Errorf("%s: search %s found %d, want %d", a.tag, q.query, len(found), q.n)
		}
	}
}

func distinct(ids []string) bool {
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}
