package fakepsp

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/stripe"
)

// cacheSide is one PSP of TestEvictedIntentsAnswerAsInMemory: the ids its
// answers named, and the answers with every id replaced by its place in
// order of first appearance, so two PSPs' answers compare byte for byte.
type cacheSide struct {
	t       *testing.T
	p       *PSP
	named   map[string]string // the script's names for ids
	aliases map[string]string // id -> placeholder
	out     []string
}

var (
	idDigits   = regexp.MustCompile(`[0-9a-f]{18}`)                       // newID's sequence and random part, after any prefix
	secretPart = regexp.MustCompile(`_secret_[0-9a-f]{6}|NTI[0-9a-f]{6}`) // ids' random parts
	requestID  = regexp.MustCompile(`req_[0-9A-Za-z]+`)
)

func (s *cacheSide) record(what string, a answer) answer {
	s.out = append(s.out, s.normal(fmt.Sprintf("%s: %d %s", what, a.status, a.raw)))
	return a
}

func (s *cacheSide) normal(text string) string {
	text = secretPart.ReplaceAllString(text, "_random_")
	text = requestID.ReplaceAllString(text, "req_R")
	return idDigits.ReplaceAllStringFunc(text, func(id string) string {
		if _, ok := s.aliases[id]; !ok {
			s.aliases[id] = fmt.Sprintf("ID%03d", len(s.aliases))
		}
		return s.aliases[id]
	})
}

// path replaces {name} with the id the script named so.
func (s *cacheSide) path(p string) string {
	for k, v := range s.named {
		p = strings.ReplaceAll(p, "{"+k+"}", v)
	}
	return p
}

func (s *cacheSide) post(name, path, key string, v url.Values) answer {
	path = s.path(path)
	a := s.record("POST "+path, form(s.t, s.p, path, key, v))
	if name != "" {
		s.named[name] = a.str("id")
		if a.status == 402 {
			pi, _ := a.body["error"].(map[string]any)["payment_intent"].(map[string]any)
			s.named[name], _ = pi["id"].(string)
		}
	}
	return a
}

func (s *cacheSide) get(path string) answer {
	path = s.path(path)
	return s.record("GET "+path, get(s.t, s.p, path))
}

// cacheScript drives intents through every path that reads or changes
// one: created, declined, confirmed, captured, refunded (by intent and by
// charge), updated, canceled, then read back one by one, listed,
// searched and expanded.
func cacheScript(s *cacheSide) {
	s.post("a", "/v1/payment_intents", "ka", payment("1000", "pm_card_visa", "pay_a"))
	manual := payment("1500", "pm_card_visa", "pay_b")
	manual.Set("capture_method", "manual")
	s.post("b", "/v1/payment_intents", "kb", manual)
	s.named["b_charge"] = s.get("/v1/payment_intents/{b}").str("latest_charge")
	s.post("c", "/v1/payment_intents", "kc", url.Values{"amount": {"700"}, "currency": {"eur"}, "description": {"third"},
		"metadata[payment_id]": {"pay_c"}})
	s.post("d", "/v1/payment_intents", "kd", payment("900", "pm_card_chargeDeclined", "pay_d"))
	s.post("e", "/v1/payment_intents", "ke", url.Values{"amount": {"300"}, "currency": {"usd"}, "payment_method": {"pm_card_visa"}})
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		s.get("/v1/payment_intents/{" + n + "}")
	}
	s.post("", "/v1/payment_intents/{b}/capture", "kb2", url.Values{"amount_to_capture": {"600"}, "metadata[captured]": {"yes"}})
	s.post("", "/v1/refunds", "kr1", url.Values{"payment_intent": {"{a}"}, "amount": {"300"}})
	s.post("", "/v1/refunds", "kr2", url.Values{"charge": {"{b_charge}"}, "reason": {"duplicate"}})
	s.post("", "/v1/payment_intents/{c}", "kc2", url.Values{"amount": {"2000"}, "description": {"changed"},
		"metadata[step]": {"2"}, "payment_method": {"pm_card_visa"}})
	s.post("", "/v1/payment_intents/{c}/confirm", "kc3", url.Values{"capture_method": {"manual"}})
	s.post("", "/v1/payment_intents/{d}/confirm", "kd2", url.Values{"payment_method": {"pm_card_visa"}})
	s.post("", "/v1/payment_intents/{e}/cancel", "ke2", url.Values{"cancellation_reason": {"abandoned"}})
	s.post("", "/v1/payment_intents/{a}/capture", "ka2", nil) // already captured: a 400
	s.post("", "/v1/payment_intents", "ka", payment("1000", "pm_card_visa", "pay_a"))
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		s.get("/v1/payment_intents/{" + n + "}")
		s.get("/v1/payment_intents/{" + n + "}?expand[]=latest_charge.balance_transaction")
	}
	s.get("/v1/payment_intents/{a}x")
	s.get("/v1/payment_intents")
	s.get("/v1/payment_intents?limit=2")
	s.get("/v1/charges")
	s.get("/v1/charges?payment_intent={d}")
	s.get("/v1/refunds?expand[]=data.payment_intent")
	s.get("/v1/refunds?payment_intent={a}")
	s.get("/v1/balance_transactions")
	s.get("/v1/payment_methods")
	s.get("/v1/payment_methods/pm_card_visa")
	for _, q := range []string{"status:'succeeded'", "metadata['payment_id']:'pay_c'", "amount>800 AND currency:'usd'", "-status:'canceled'"} {
		s.get("/v1/payment_intents/search?" + url.Values{"query": {q}}.Encode())
	}
	s.get("/v1/payment_intents/search?" + url.Values{"query": {"amount>0"}, "limit": {"2"}, "page": {"page_2"}}.Encode())
}

// TestEvictedIntentsAnswerAsInMemory: a PSP that keeps one PaymentIntent
// in memory, every other on disk, answers the script exactly as one that
// keeps them all, and its intents are on disk (its store grew by them).
func TestEvictedIntentsAnswerAsInMemory(t *testing.T) {
	clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
	var sides [2]*cacheSide
	for i := range sides {
		p := start(t, Config{Clock: clock})
		if i == 1 {
			p.api.(*stripe.API).KeepIntents(1)
		}
		sides[i] = &cacheSide{t: t, p: p, named: map[string]string{}, aliases: map[string]string{}}
		cacheScript(sides[i])
	}
	mem, disk := sides[0], sides[1]
	for i := range mem.out {
		if mem.out[i] != disk.out[i] {
			t.Fatalf("answer %d differs with intents on disk:\n%s\nin memory:\n%s", i, disk.out[i], mem.out[i])
		}
	}
	if d, m := disk.p.spill.Size(), mem.p.spill.Size(); d <= m {
		t.Fatalf("the store of the PSP that keeps one intent in memory holds %d bytes, the other's %d: no intent went to disk", d, m)
	}
	if err := disk.p.ReadError(); err != nil {
		t.Fatalf("ReadError: %v", err)
	}
}

// An evicted intent that cannot be read back is a 500 on every path that
// needs it, never a 404, and the PSP's ReadError says so.
func TestEvictedIntentUnreadableIs500(t *testing.T) {
	p := start(t, Config{})
	p.api.(*stripe.API).KeepIntents(1)
	a := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "create", a, 200)
	wantStatus(t, "second create", form(t, p, "/v1/payment_intents", "k2", payment("1000", "pm_card_visa", "pay_2")), 200)
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	id, ch := a.str("id"), a.str("latest_charge")
	for _, path := range []string{"/v1/payment_intents/" + id, "/v1/payment_intents", "/v1/charges/" + ch, "/v1/charges",
		"/v1/payment_intents/search?query=status:'succeeded'"} {
		if r := get(t, p, path); r.status != 500 || !strings.Contains(r.errField("message"), "cannot be read back") {
			t.Errorf("GET %s: %d %s; want a 500 naming the read", path, r.status, r.raw)
		}
	}
	r := form(t, p, "/v1/refunds", "k3", url.Values{"payment_intent": {id}})
	if r.status != 500 {
		t.Errorf("refund: %d %s; want 500", r.status, r.raw)
	}
	if p.PaymentIntentOfCharge(ch) != "" {
		t.Error("PaymentIntentOfCharge named a payment it could not read")
	}
	if err := p.ReadError(); err == nil || !strings.Contains(err.Error(), "cannot be read back") {
		t.Fatalf("ReadError: %v; want the failed read", err)
	}
}

// Requests racing on intents a one-intent cache keeps evicting each change
// the one intent the book holds (a request pins it), so no change is lost
// to a copy written back over it.
func TestEvictionUnderConcurrentRequests(t *testing.T) {
	p := start(t, Config{})
	p.api.(*stripe.API).KeepIntents(1)
	const n = 6
	ids := make([]string, n)
	for i := range ids {
		v := payment("1000", "pm_card_visa", "pay_"+strconv.Itoa(i))
		v.Set("capture_method", "manual")
		a := form(t, p, "/v1/payment_intents", "c"+strconv.Itoa(i), v)
		wantStatus(t, "create", a, 200)
		ids[i] = a.str("id")
	}
	// t.Errorf, not t.Fatalf: these run on goroutines of their own.
	send := func(method, path, key string, v url.Values) {
		a, err := do(t, client(5*time.Second), method, p.URL()+path, p.SecretKey(), key, "application/x-www-form-urlencoded", v.Encode())
		if err != nil || a.status != 200 {
			t.Errorf("%s %s: %v %d %s", method, path, err, a.status, a.raw)
		}
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(3)
		go func() {
			defer wg.Done()
			send(http.MethodPost, "/v1/payment_intents/"+id+"/capture", "cap"+strconv.Itoa(i), url.Values{"amount_to_capture": {"800"}})
			send(http.MethodPost, "/v1/refunds", "ref"+strconv.Itoa(i), url.Values{"payment_intent": {id}, "amount": {"100"}})
		}()
		go func() {
			defer wg.Done()
			send(http.MethodPost, "/v1/payment_intents/"+id, "upd"+strconv.Itoa(i), url.Values{"metadata[seen]": {"yes"}})
		}()
		go func() {
			defer wg.Done()
			send(http.MethodGet, "/v1/payment_intents/search?query=status:'succeeded'", "", url.Values{})
		}()
	}
	wg.Wait()
	for _, id := range ids {
		a := get(t, p, "/v1/payment_intents/"+id)
		md, _ := a.body["metadata"].(map[string]any)
		if a.status != 200 || a.str("status") != "succeeded" || a.body["amount_received"] != 800.0 || md["seen"] != "yes" {
			t.Fatalf("%s after the race: %d %s", id, a.status, a.raw)
		}
		ch := get(t, p, "/v1/charges/"+a.str("latest_charge"))
		if ch.status != 200 || ch.body["amount_refunded"] != 300.0 { // 200 released, 100 refunded
			t.Fatalf("charge of %s after the race: %d %s", id, ch.status, ch.raw)
		}
	}
	wantCharges(t, p, n)
}

// TestEvictionUnderConcurrentCreates: creates race (an id is made before
// the PSP's lock is taken, so ids reach the book out of order), each
// intent confirmed, with one intent kept in memory: every intent is found
// by id afterwards, and the list holds each once.
func TestEvictionUnderConcurrentCreates(t *testing.T) {
	p := start(t, Config{})
	p.api.(*stripe.API).KeepIntents(1)
	const n = 48
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := payment("1000", "pm_card_visa", "pay_"+strconv.Itoa(i))
			v.Set("confirm", "true")
			a, err := do(t, client(5*time.Second), http.MethodPost, p.URL()+"/v1/payment_intents", p.SecretKey(), "cc"+strconv.Itoa(i), "application/x-www-form-urlencoded", v.Encode())
			if err != nil || a.status != 200 {
				t.Errorf("create %d: %v %d %s", i, err, a.status, a.raw)
				return
			}
			ids[i] = a.str("id")
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, id := range ids {
		if a := get(t, p, "/v1/payment_intents/"+id); a.status != 200 || a.str("status") != "succeeded" {
			t.Errorf("intent %d (%s): %d %s", i, id, a.status, a.raw)
		}
		seen[id] = true
	}
	a := get(t, p, "/v1/payment_intents?limit=100")
	data, _ := a.body["data"].([]any)
	listed := map[string]bool{}
	for _, d := range data {
		listed[d.(map[string]any)["id"].(string)] = true
	}
	if a.status != 200 || len(data) != n || len(listed) != n || len(seen) != n {
		t.Fatalf("list: %d, %d intents (%d distinct), want %d", a.status, len(data), len(listed), n)
	}
	wantCharges(t, p, n)
}

// An intent in memory whose search version and index (on disk) cannot be
// read: the search answers a 500 whose message says "fakepsp: " once, and
// ReadError names what failed, for a harness that searched meanwhile got
// no answer it can vouch for. (TestVersionUnreadableNamesIt, in package
// stripe, fails the version alone.)
func TestSearchUnreadableIs500AndReadError(t *testing.T) {
	p := start(t, Config{})
	a := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "create", a, 200)
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	r := get(t, p, "/v1/payment_intents/search?query=status:'succeeded'")
	msg := r.errField("message")
	if r.status != 500 || !strings.HasPrefix(msg, "fakepsp: the index of PaymentIntents cannot be read back") || strings.Count(msg, "fakepsp: ") != 1 {
		t.Errorf("search: %d %s; want a 500 naming the index, fakepsp: once", r.status, r.raw)
	}
	if err := p.ReadError(); err == nil || err.Error() != msg {
		t.Fatalf("ReadError: %v; want the read the search answered (%s)", err, msg)
	}
}
