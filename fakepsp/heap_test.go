package fakepsp

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/liveheap"
)

// heapProfile names a file for the heap profile BenchmarkHeapPerIntent
// writes once its intents are in (go tool pprof -top FILE).
var heapProfile = flag.String("heapprof", "", "write the heap profile of BenchmarkHeapPerIntent to this file")

// heapIntents is how many PaymentIntents one iteration drives: enough that
// the per-intent figure is not the PSP's fixed cost.
const heapIntents = 2000

// BenchmarkHeapPerIntent measures what the PSP keeps in memory per
// PaymentIntent a service drives through it as a soak does: a create under
// an Idempotency-Key, a confirm under another, a retry of the create (a
// replay), a retrieve, an events list and a search, with a webhook endpoint
// that takes every event (so delivery records count). The figure is the live
// heap after a GC, grown over the run, divided by the intents; it is what a
// one-hour soak's fakepsp grows by per intent (issue 54). Run with
// -benchtime=1x.
func BenchmarkHeapPerIntent(b *testing.B) { heapPerIntent(b, false) }

// BenchmarkHeapPerIntentFaulted is BenchmarkHeapPerIntent with faults armed
// and undone around each intent, as a chaos soak arms them (3,048 over one
// hour): a short delay before the confirm's charge that fires once (and is
// spent), and a lost reply on a key no request uses, undone unfired. What
// the fault set keeps of them counts in the figure; heapB/fault is the rest
// over the plain benchmark's, divided by the two faults.
func BenchmarkHeapPerIntentFaulted(b *testing.B) { heapPerIntent(b, true) }

func heapPerIntent(b *testing.B, faulted bool) {
	if *heapProfile != "" {
		// Every allocation sampled: the profile names bytes, not estimates.
		defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1
	}
	for b.Loop() {
		heap, marginal, disk := measureHeapPerIntent(b, heapIntents, faulted)
		b.ReportMetric(heap, "heapB/intent")
		b.ReportMetric(marginal, "marginalB/intent")
		b.ReportMetric(disk, "diskB/intent")
	}
}

// TestHeapPerIntentStaysCompact keeps what fakepsp holds in memory per
// PaymentIntent from growing back unnoticed: a soak drives thousands
// through one PSP. Over 2,000 intents it measures 70-99 B an intent, most
// of it the PSP's fixed part (the 128 intents the cache keeps, the logs'
// unwritten tails); each intent of the second thousand keeps 11-20 B, with
// or without two faults armed and undone per intent (the intents',
// charges' and keys' indexes and the undone faults' fired counts are on
// disk; the faults' records in memory were about 40 B an intent). The
// bounds are about twice that: noise never fails them, but an index back
// in memory (the keys' about 70 B an intent, the intents' and charges'
// together about 70, the faults' records about 40) does, and an intent's
// record kept in memory again (about 500 B with its search versions and
// its charge) fails every one.
func TestHeapPerIntentStaysCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("drives 4,000 intents")
	}
	for _, c := range []struct {
		faulted              bool
		bound, marginalBound float64
	}{{false, 300, 40}, {true, 300, 40}} {
		// A PSP each, closed before the next starts.
		t.Run(fmt.Sprintf("faulted=%v", c.faulted), func(t *testing.T) {
			heap, marginal, _ := measureHeapPerIntent(t, 2000, c.faulted)
			if heap > c.bound {
				t.Errorf("fakepsp keeps %.0f B of heap per intent, want at most %.0f (see BenchmarkHeapPerIntent -heapprof for what)", heap, c.bound)
			}
			if marginal > c.marginalBound {
				t.Errorf("each intent of the second thousand kept %.1f B of heap, want at most %.0f", marginal, c.marginalBound)
			}
		})
	}
}

// measureHeapPerIntent drives n intents through a new PSP and returns, per
// intent, the live heap it grew over all of them (the PSP's fixed cost
// spread over n) and over the second half (marginal: what each intent more
// keeps, a soak's slope), and the bytes it wrote to disk.
func measureHeapPerIntent(tb testing.TB, n int, faulted bool) (heap, marginal, disk float64) {
	p := start(tb, Config{})
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer recv.Close()
	if _, err := p.RegisterWebhook(recv.URL); err != nil {
		tb.Fatal(err)
	}
	c := &http.Client{}
	defer c.CloseIdleConnections()
	// One intent first: what the first request builds once (the tree of
	// Stripe's known parameters, ~130 KB, the JSON encoders' caches) is the
	// PSP's fixed cost, not a soak's growth.
	warm := driveIntent(tb, c, p, -1)
	events := len(p.WebhookEvents(warm))
	// Every event delivered before a measure: one in flight holds its body.
	settled := func() uint64 {
		waitFor(tb, "every event delivered once", 60*time.Second, func() bool { return p.dlog.Len() >= events })
		return liveheap.Bytes()
	}
	before := settled()
	var mid uint64
	for i := range n {
		if i == n/2 {
			mid = settled()
		}
		if !faulted {
			events += len(p.WebhookEvents(driveIntent(tb, c, p, i)))
			continue
		}
		k := strconv.Itoa(i)
		delay := p.Faults().Arm(FaultSpec{Kind: DelayBeforeCharge, Delay: time.Microsecond, Match: Match{PSPKey: "confirm-" + k, Times: 1}})
		unused := p.Faults().Arm(FaultSpec{Kind: LoseReply, Match: Match{PSPKey: "never-" + k}})
		events += len(p.WebhookEvents(driveIntent(tb, c, p, i)))
		if delay.Fired() != 1 || unused.Fired() != 0 {
			tb.Fatalf("intent %d: the delay fired %d times (want 1), the unused fault %d (want 0)", i, delay.Fired(), unused.Fired())
		}
		unused.Undo()
	}
	after := settled()
	heap = (float64(after) - float64(before)) / float64(n)
	marginal = (float64(after) - float64(mid)) / float64(n-n/2)
	tb.Logf("live heap %d -> %d -> %d bytes over %d intents (%d events delivered, faulted %v): %.0f bytes per intent, %.1f per intent of the second half",
		before, mid, after, n, events, faulted, heap, marginal)
	if *heapProfile != "" {
		writeHeapProfile(tb, *heapProfile)
	}
	runtime.KeepAlive(p)
	return heap, marginal, float64(p.spill.Size()) / float64(n)
}

func writeHeapProfile(b testing.TB, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// driveIntent takes one PaymentIntent through a service's calls, each
// answer checked so that a figure is never measured over refusals.
func driveIntent(b testing.TB, c *http.Client, p *PSP, i int) string {
	n := strconv.Itoa(i)
	create := url.Values{"amount": {"1000"}, "currency": {"usd"}, "payment_method": {"pm_card_visa"},
		"metadata[payment_id]": {"pay_" + n}, "metadata[intent]": {"/pay:phone-1:pay_" + n}}.Encode()
	body := heapCall(b, c, p, http.MethodPost, "/v1/payment_intents", "create-"+n, create, false)
	id := jsonField(b, body, "id")
	heapCall(b, c, p, http.MethodPost, "/v1/payment_intents/"+id+"/confirm", "confirm-"+n, "", false)
	heapCall(b, c, p, http.MethodPost, "/v1/payment_intents", "create-"+n, create, true)
	heapCall(b, c, p, http.MethodGet, "/v1/payment_intents/"+id, "", "", false)
	heapCall(b, c, p, http.MethodGet, "/v1/events?limit=3", "", "", false)
	q := url.Values{"query": {"metadata['payment_id']:'pay_" + n + "'"}}.Encode()
	heapCall(b, c, p, http.MethodGet, "/v1/payment_intents/search?"+q, "", "", false)
	return id
}

func heapCall(b testing.TB, c *http.Client, p *PSP, method, path, key, body string, replay bool) string {
	req, _ := http.NewRequest(method, p.URL()+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.SecretKey())
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || (resp.Header.Get("Idempotent-Replayed") == "true") != replay {
		b.Fatalf("%s %s: status %d, replayed %q, want 200 replayed %v: %s", method, path, resp.StatusCode,
			resp.Header.Get("Idempotent-Replayed"), replay, raw)
	}
	return string(raw)
}

func jsonField(b testing.TB, body, k string) string {
	i := strings.Index(body, `"`+k+`":"`)
	if i < 0 {
		b.Fatalf("no %q in %s", k, body)
	}
	rest := body[i+len(k)+4:]
	return rest[:strings.IndexByte(rest, '"')]
}
