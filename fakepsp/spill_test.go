package fakepsp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// What the PSP keeps on disk leaves no file behind: the file loses its name
// as soon as it is made, and Close closes it.
func TestSpillFileIsGoneAfterClose(t *testing.T) {
	p, err := Start(Config{RateLimits: RateLimits{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "create", form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1")), 200)
	path := p.spill.Path()
	if path == "" {
		t.Fatal("a keyed answer was saved but nothing was written to disk")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spill file %s has a name while the PSP runs: %v", path, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spill file %s exists after Close: %v", path, err)
	}
	if _, err := p.spill.Put([]byte("x")); err == nil {
		t.Fatal("the store still takes writes after Close")
	}
}

// A saved answer that cannot be read back is a 500 saying so, never
// another body and never a second execution.
func TestReplayThatCannotBeReadIs500(t *testing.T) {
	p := start(t, Config{})
	first := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "create", first, 200)
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	again := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "replay", again, 500)
	if again.errType() != "api_error" || !strings.Contains(again.errField("message"), "saved answer of idempotency key k1 cannot be read back") {
		t.Fatalf("replay answer: %s", again.raw)
	}
	wantCharges(t, p, 1)
}

// An event whose JSON cannot be read back is a 500 on the API, an error to
// a harness resending it, and a failed attempt for a webhook endpoint: no
// receiver gets a body the PSP cannot vouch for.
func TestEventThatCannotBeReadIsNeverSent(t *testing.T) {
	p := start(t, Config{WebhookSchedule: WebhookSchedule{Horizon: time.Millisecond}})
	var received atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { received.Add(1) }))
	defer recv.Close()
	if _, err := p.RegisterWebhook(recv.URL); err != nil {
		t.Fatal(err)
	}
	hold := p.HoldWebhooks(func(WebhookEvent) bool { return true })
	a := form(t, p, "/v1/payment_intents", "k1", payment("1000", "pm_card_visa", "pay_1"))
	wantStatus(t, "create", a, 200)
	held := hold.Events()
	if len(held) == 0 || held[0].Err != nil || len(held[0].Raw) == 0 {
		t.Fatalf("held events before the failure: %+v", held)
	}
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	if l := get(t, p, "/v1/events"); l.status != 500 || !strings.Contains(l.errField("message"), "cannot be read back") {
		t.Fatalf("events list: %d %s", l.status, l.raw)
	}
	if e := get(t, p, "/v1/events/"+held[0].ID); e.status != 500 || !strings.Contains(e.errField("message"), "event "+held[0].ID) {
		t.Fatalf("event retrieve: %d %s", e.status, e.raw)
	}
	if _, err := p.Send(context.Background(), held[0].ID, SendOptions{URL: recv.URL, Via: "test"}); err == nil {
		t.Fatal("Send of an unreadable event did not fail")
	}
	if ev := p.WebhookEvents(a.str("id")); len(ev) == 0 || ev[0].Err == nil || ev[0].Raw != nil {
		t.Fatalf("WebhookEvents after the failure: %+v", ev)
	}
	hold.Release()
	waitFor(t, "every held event's one attempt to fail", 5*time.Second, func() bool {
		gaveUp := 0
		for _, d := range p.Deliveries() {
			if d.GaveUp {
				gaveUp++
			}
		}
		return gaveUp == len(held)
	})
	if ds := p.Deliveries(); len(ds) != len(held) {
		t.Fatalf("%d delivery attempts for %d held events, want one each: %+v", len(ds), len(held), ds)
	}
	for _, d := range p.Deliveries() {
		if d.Status != 0 || !strings.Contains(d.Err, "cannot be read back") {
			t.Fatalf("delivery %+v: want a failed attempt naming the read", d)
		}
	}
	if n := received.Load(); n != 0 {
		t.Fatalf("the receiver got %d deliveries of unreadable events", n)
	}
}

// An older version of a PaymentIntent, which search shows while the lag
// hides the newer, is read back from disk as it was answered; a search
// whose store is gone is a 500 saying what it could not read
// (TestVersionUnreadableNamesIt names the version).
func TestSearchShowsAnOlderVersionFromDisk(t *testing.T) {
	const lag = 2 * time.Second
	p := start(t, Config{SearchLag: lag, SearchSeed: 11})
	v := payment("1000", "pm_card_visa", "pay_old")
	v.Del("confirm")
	created := form(t, p, "/v1/payment_intents", "k1", v)
	wantStatus(t, "create", created, 200)
	q := "/v1/payment_intents/search?" + url.Values{"query": {"metadata['payment_id']:'pay_old'"}}.Encode()
	waitFor(t, "search to see the first version", 3*lag, func() bool {
		data, _ := get(t, p, q).body["data"].([]any)
		return len(data) == 1
	})
	confirmedAt := time.Now()
	wantStatus(t, "confirm", form(t, p, "/v1/payment_intents/"+created.str("id")+"/confirm", "k2", nil), 200)
	res := get(t, p, q)
	data, _ := res.body["data"].([]any)
	if took := time.Since(confirmedAt); took >= lag/2 && (len(data) != 1 || !reflect.DeepEqual(data[0], created.body)) {
		t.Skipf("the machine took %v, past the lag's lower bound: the newer version may be the visible one", took)
	}
	if len(data) != 1 || !reflect.DeepEqual(data[0], created.body) {
		t.Fatalf("search inside the lag: %s\nwant the first version, as created: %s", res.raw, created.raw)
	}
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	bad := get(t, p, q)
	// The intents' index is on that store too, and is read first.
	if bad.status != 500 || !strings.Contains(bad.errField("message"), "cannot be read back") {
		t.Fatalf("search with the store gone: %d %s", bad.status, bad.raw)
	}
}

// Search and the events list read back only the page they answer, and
// page as before: newest first, limit per page, the cursor to the next.
func TestPagesReadBackFromDisk(t *testing.T) {
	p := start(t, Config{})
	var made []string
	for i := range 5 {
		v := payment("100", "pm_card_visa", "pay_pg")
		v.Set("metadata[order_id]", "pg")
		a := form(t, p, "/v1/payment_intents", "pg"+string(rune('a'+i)), v)
		wantStatus(t, "create", a, 200)
		made = append([]string{a.str("id")}, made...) // newest first
	}
	var got []string
	page := ""
	for range 3 {
		q := url.Values{"query": {"metadata['order_id']:'pg'"}, "limit": {"2"}}
		if page != "" {
			q.Set("page", page)
		}
		res := get(t, p, "/v1/payment_intents/search?"+q.Encode())
		wantStatus(t, "search", res, 200)
		for _, d := range res.body["data"].([]any) {
			got = append(got, d.(map[string]any)["id"].(string))
		}
		page, _ = res.body["next_page"].(string)
	}
	if !reflect.DeepEqual(got, made) || page != "" {
		t.Fatalf("search pages: %v (next %q), want %v", got, page, made)
	}
	all := get(t, p, "/v1/events?limit=100")
	first := get(t, p, "/v1/events?limit=2")
	rest := get(t, p, "/v1/events?limit=100&starting_after="+first.body["data"].([]any)[1].(map[string]any)["id"].(string))
	joined := append(first.body["data"].([]any), rest.body["data"].([]any)...)
	if first.body["has_more"] != true || !reflect.DeepEqual(joined, all.body["data"]) || len(joined) < 5 {
		t.Fatalf("events pages: %s + %s, want %s", first.raw, rest.raw, all.raw)
	}
}
