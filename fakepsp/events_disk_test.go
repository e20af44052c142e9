package fakepsp

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/fakepsp/stripe"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// raiseEvents drives n PaymentIntents of three kinds (created only,
// charged, declined), so that events of five types interleave, and returns
// every event of the account, oldest first, as WebhookEvents reads them.
func raiseEvents(t *testing.T, p *PSP, n int) []WebhookEvent {
	t.Helper()
	var all []WebhookEvent
	for i := range n {
		v := payment("1000", "pm_card_visa", "pay_"+strconv.Itoa(i))
		status := 200
		switch i % 3 {
		case 1:
			v.Del("confirm")
		case 2:
			v.Set("payment_method", "pm_card_chargeDeclined")
			status = 402
		}
		a := form(t, p, "/v1/payment_intents", "k"+strconv.Itoa(i), v)
		wantStatus(t, "create "+strconv.Itoa(i), a, status)
		pi := a.str("id")
		if pi == "" {
			e, _ := a.body["error"].(map[string]any)
			intent, _ := e["payment_intent"].(map[string]any)
			pi, _ = intent["id"].(string)
		}
		evs := p.WebhookEvents(pi)
		if len(evs) == 0 {
			t.Fatalf("intent %d (%s) raised no event", i, pi)
		}
		all = append(all, evs...)
	}
	if err := p.ReadError(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b WebhookEvent) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// GET /v1/events reads only the pages it answers, yet answers as the list
// of every event would: each page (limit, type filter, either cursor, a
// cursor filtered out or unknown) has the ids, order and has_more that
// PaginateLazy gives over every matching id, newest first; and paging
// through with starting_after yields every event once.
func TestEventsListMatchesEveryIDsPage(t *testing.T) {
	p := start(t, Config{})
	all := raiseEvents(t, p, 60) // 140 events: two chunks on disk and a tail
	if len(all) <= 2*spill.ChunkLen {
		t.Fatalf("%d events, want more than two chunks", len(all))
	}
	filters := []url.Values{{}, {"type": {"charge.succeeded"}}, {"type": {"payment_intent.*"}},
		{"types[]": {"charge.failed", "payment_intent.created"}}}
	var cursors []string
	for i := 0; i < len(all); i += 9 {
		cursors = append(cursors, all[i].ID)
	}
	cursors = append(cursors, all[len(all)-1].ID, "evt_000000000000000000", "evt_nope")
	for _, f := range filters {
		var types []string
		types = append(types, f["types[]"]...)
		types = append(types, f["type"]...)
		var ids []string // newest first
		for i := len(all) - 1; i >= 0; i-- {
			if stripe.TypeMatches(types, all[i].Type) {
				ids = append(ids, all[i].ID)
			}
		}
		for _, limit := range []string{"", "1", "7", "100"} {
			queries := []url.Values{{}}
			for _, c := range cursors {
				queries = append(queries, url.Values{"starting_after": {c}}, url.Values{"ending_before": {c}})
			}
			for _, q := range queries {
				for k, v := range f {
					q[k] = v
				}
				if limit != "" {
					q.Set("limit", limit)
				}
				wantEventsPage(t, p, q, ids)
			}
		}
		// Paging through: every matching event once, in order.
		var seen []string
		q := url.Values{"limit": {"10"}}
		for k, v := range f {
			q[k] = v
		}
		for more := true; more; {
			page := get(t, p, "/v1/events?"+q.Encode())
			wantStatus(t, "events "+q.Encode(), page, 200)
			data, _ := page.body["data"].([]any)
			for _, d := range data {
				seen = append(seen, d.(map[string]any)["id"].(string))
			}
			more, _ = page.body["has_more"].(bool)
			q.Set("starting_after", seen[len(seen)-1])
		}
		if !slices.Equal(seen, ids) {
			t.Fatalf("types %v: paging through gave %d events, want the %d matching:\n%v\n%v", types, len(seen), len(ids), seen, ids)
		}
	}
}

// wantEventsPage compares GET /v1/events?q with PaginateLazy's page of ids.
func wantEventsPage(t *testing.T, p *PSP, q url.Values, ids []string) {
	t.Helper()
	prm, bad := stripe.ReadParams(httptest.NewRequest("GET", "/v1/events?"+q.Encode(), nil))
	if bad != nil {
		t.Fatalf("%s: %+v", q.Encode(), bad)
	}
	want := stripe.PaginateLazy(prm, "/v1/events", ids, func(i int) (any, error) { return ids[i], nil })
	wantBody := want.Body.(map[string]any)
	page := get(t, p, "/v1/events?"+q.Encode())
	wantStatus(t, "events "+q.Encode(), page, want.Status)
	var got []string
	data, _ := page.body["data"].([]any)
	for _, d := range data {
		got = append(got, d.(map[string]any)["id"].(string))
	}
	var wantIDs []string
	for _, id := range wantBody["data"].([]any) {
		wantIDs = append(wantIDs, id.(string))
	}
	if !slices.Equal(got, wantIDs) || page.body["has_more"] != wantBody["has_more"] {
		t.Fatalf("events?%s: %v has_more %v\nwant %v has_more %v", q.Encode(), got, page.body["has_more"], wantIDs, wantBody["has_more"])
	}
}

// Events on a chunk that cannot be read back: a list or a retrieve that
// needs it is a 500 saying so, a harness's look finds none of a payment's
// events or cannot send one, and ReadError reports it each time, so no
// check takes the shorter answer for the whole.
func TestEventsChunkThatCannotBeReadIs500AndReadError(t *testing.T) {
	p := start(t, Config{})
	// 140 events: two chunks on disk, the last read (the second) cached
	// as a page of records, so the first one's must come from disk.
	all := raiseEvents(t, p, 60)
	first := all[0]
	if err := p.spill.Close(); err != nil {
		t.Fatal(err)
	}
	wantUnread := func(what string) {
		t.Helper()
		err := p.ReadError()
		if !errors.Is(err, spill.ErrClosed) || !strings.Contains(err.Error(), "events 1-64 cannot be read back") {
			t.Fatalf("%s: ReadError %v, want the chunk of events 1-64 and ErrClosed", what, err)
		}
		if err := p.ReadError(); err != nil {
			t.Fatalf("%s: ReadError asked again: %v, want nil", what, err)
		}
	}
	l := get(t, p, "/v1/events?limit=100")
	if l.status != 500 || !strings.Contains(l.errField("message"), "events 1-64 cannot be read back") {
		t.Fatalf("events list: %d %s", l.status, l.raw)
	}
	wantUnread("list")
	e := get(t, p, "/v1/events/"+first.ID)
	if e.status != 500 || !strings.Contains(e.errField("message"), "event "+first.ID) {
		t.Fatalf("event retrieve: %d %s", e.status, e.raw)
	}
	wantUnread("retrieve")
	if evs := p.WebhookEvents(first.PaymentIntent); len(evs) != 0 {
		t.Fatalf("WebhookEvents of %s: %+v, want none readable", first.PaymentIntent, evs)
	}
	wantUnread("WebhookEvents")
	if _, err := p.Send(context.Background(), first.ID, SendOptions{URL: "http://127.0.0.1:1/", Via: "test"}); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("Send of an event on an unreadable chunk: %v, want ErrClosed", err)
	}
	wantUnread("Send")
}
