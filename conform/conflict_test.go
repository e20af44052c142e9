package conform

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/scenario"
)

// P-conflict's verdict does not hang on a race (issue 50): the first
// copy's PSP answer is held and the second copy is sent only once the PSP
// executed the first, so a create with no idempotency layer of its own
// (paysvc --flaw no-layer: the PSP's replay reaches the duplicate as a
// 201) deviates on every seed, and the correct service answers 409 on
// every seed. Ten seeds each, every one printed.
func TestConflictVerdictIsStable(t *testing.T) {
	for _, tc := range []struct {
		flaw string
		want scenario.Verdict
		why  string // in the verdict's words
	}{
		{"no-layer", scenario.Deviation, "the concurrent duplicate got 201 succeeded while the first was held"},
		{"none", scenario.Pass, "concurrent duplicate got 409"},
	} {
		t.Run(tc.flaw, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 10; seed++ {
				_, rep, out := fixture{flaw: tc.flaw}.run(t, Options{Only: []string{"P-conflict"}, Seed: seed})
				i := -1
				if rep != nil {
					i = slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == "P-conflict" })
				}
				if i < 0 {
					t.Fatalf("seed %d: no P-conflict result: %s", seed, out)
				}
				r := rep.Results[i]
				text := r.Why
				for _, f := range r.Findings {
					text += " " + f.Message
				}
				t.Logf("seed %d: %s %s", seed, r.Verdict, text)
				if r.Verdict != tc.want || !strings.Contains(text, tc.why) || !strings.Contains(text, "once the PSP had executed the first copy's charge") {
					t.Errorf("seed %d: %s (%s), want %s saying %q", seed, r.Verdict, text, tc.want, tc.why)
				}
			}
		})
	}
}

// With a fakepsp idemcheck did not start (effects.fakepsp_url: no
// recording front), the first copy's answer is held by fakepsp's own
// hold_reply, which fires once the charge is made and saved: the same
// verdicts, seed after seed, and no fault left armed.
func TestConflictOnARemoteFakePSP(t *testing.T) {
	psp := startFakePSP(t)
	for _, tc := range []struct {
		flaw string
		want scenario.Verdict
		why  string
	}{
		{"no-layer", scenario.Deviation, "the concurrent duplicate got 201 succeeded while the first was held"},
		{"none", scenario.Pass, "concurrent duplicate got 409"},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			text := strings.Replace(fixture{flaw: tc.flaw}.configText(t), "  fakepsp: true", "  fakepsp_url: "+psp, 1)
			_, rep, out := runText(t, text, Options{Only: []string{"P-conflict"}, Seed: seed})
			i := -1
			if rep != nil {
				i = slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == "P-conflict" })
			}
			if i < 0 {
				t.Fatalf("%s seed %d: no P-conflict result: %s", tc.flaw, seed, out)
			}
			r := rep.Results[i]
			t.Logf("%s seed %d: %s %s", tc.flaw, seed, r.Verdict, r.Why)
			if r.Verdict != tc.want || !strings.Contains(r.Why, tc.why) || !strings.Contains(r.Why, "once the PSP had executed the first copy's charge") {
				t.Errorf("%s seed %d: %s (%s), want %s saying %q", tc.flaw, seed, r.Verdict, r.Why, tc.want, tc.why)
			}
			if n := armedFaults(t, psp); n != 0 {
				t.Errorf("%s seed %d: %d fault(s) left armed at fakepsp", tc.flaw, seed, n)
			}
		}
	}
}

// fakeCreate is a service without a PSP idemcheck runs: every create of a
// key is answered 201 with one payment; with barrier, the first copy of a
// key waits (at most 1s) for a second to arrive, which is answered 409, so
// the copies overlap by the service's own construction.
func fakeCreate(barrier bool) *httptest.Server {
	var mu sync.Mutex
	arrived := map[string]chan struct{}{}
	paid := map[string]bool{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/healthz":
			return
		case r.URL.Path == "/count":
			mu.Lock()
			fmt.Fprintf(w, `{"count": %d}`, len(paid))
			mu.Unlock()
			return
		}
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		ch, second := arrived[key]
		if !second {
			ch = make(chan struct{})
			arrived[key] = ch
		}
		mu.Unlock()
		if barrier && second {
			close(ch)
			w.WriteHeader(409)
			return
		}
		if barrier {
			select {
			case <-ch:
			case <-time.After(time.Second):
			}
		}
		mu.Lock()
		paid[key] = true
		mu.Unlock()
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id": "pay_%x", "status": "succeeded"}`, len(key))
	}))
}

// Where idemcheck holds no PSP, P-conflict says which order was proven: a
// service's own in-progress answer to one of two copies proves they
// overlapped (pass, saying so); two final answers prove nothing (a
// finished first copy's replay is correct): inconclusive, never a pass or
// a deviation.
func TestConflictWithoutAPSPSaysWhatWasProven(t *testing.T) {
	for _, tc := range []struct {
		barrier bool
		want    scenario.Verdict
		words   string
	}{
		{true, scenario.Pass, "the service's own in-progress answer to one of two copies sent together shows they overlapped"},
		{false, scenario.Inconclusive, "idemcheck holds no PSP here to keep the first copy executing, and the two copies sent together were answered 2x 201 succeeded"},
	} {
		t.Run(fmt.Sprint("barrier=", tc.barrier), func(t *testing.T) {
			srv := fakeCreate(tc.barrier)
			defer srv.Close()
			f := fixture{flaw: "none", effects: `http_counter: {url: "` + srv.URL + `/count", field: count}`}
			_, rep, out := runText(t, servedBy(t, f, srv.URL, ""), Options{Only: []string{"P-conflict"}})
			i := -1
			if rep != nil {
				i = slices.IndexFunc(rep.Results, func(r scenario.Result) bool { return r.ID == "P-conflict" })
			}
			if i < 0 {
				t.Fatalf("no P-conflict result: %s", out)
			}
			r := rep.Results[i]
			why := r.Precondition + " | " + r.Why
			if r.Verdict != tc.want || !strings.Contains(why, tc.words) {
				t.Errorf("%s (%s), want %s saying %q", r.Verdict, why, tc.want, tc.words)
			}
		})
	}
}
