package conform

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/checks"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// TestA404ServiceMakesNoVectorPass: a service that answers 404 to every
// request (a wrong create.path) gives the protocol vectors nothing to
// replay or refuse: none may pass on replayed 404s (issue 50: P-quoted-key,
// P-4xx-replayed and P-mismatch-no-poison did), and every one that sent a
// create says why it proves nothing.
func TestA404ServiceMakesNoVectorPass(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			w.WriteHeader(200)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var only []string
	for _, c := range checks.All() {
		if c.Level == scenario.Protocol {
			only = append(only, c.ID)
		}
	}
	// converge_within 1s: every create is a 404, no retry changes that.
	code, rep, out := runText(t, servedBy(t, fixture{flaw: "none"}, srv.URL, "1s"), Options{Only: only})
	if rep == nil {
		t.Fatalf("no report (exit %d): %s", code, out)
	}
	if code == ExitPass {
		t.Errorf("exit 0 against a service that answers 404 to everything")
	}
	seen := 0
	for _, r := range rep.Results {
		if !strings.HasPrefix(r.ID, "P-") {
			continue
		}
		seen++
		if r.Verdict == scenario.Pass {
			t.Errorf("%s passed against a 404 service: %s", r.ID, r.Why)
		}
		if r.Verdict == scenario.Inconclusive && !strings.Contains(r.Precondition, "404") {
			t.Errorf("%s: inconclusive without naming the 404: %s", r.ID, r.Precondition)
		}
	}
	if seen != len(only) {
		t.Errorf("%d vectors reported, want %d", seen, len(only))
	}
}
