package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/freeport"
)

func pspAddr(t *testing.T) string {
	t.Helper()
	p, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", p)
}

// Each answer no config can describe is an *Error naming what was sent,
// what came back and what to change.
func TestBadAnswersAreClearErrors(t *testing.T) {
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "http://" + down.Addr().String()
	down.Close()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		url     string
		says    []string
	}{
		{"service down", nil, downURL, []string{"nothing answers at " + downURL, "connection refused"}},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(201)
			fmt.Fprint(w, "payment created")
		}, "", []string{"POST ", "/payments answered 201", "not a JSON object", "payment created"}},
		{"no status seen: the connection closes", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "GET" {
				return
			}
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}, "", []string{"/payments: no answer", "EOF"}},
		{"credentials wanted", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
		}, "", []string{"answered 401", "--caller 'Authorization: Bearer TOKEN'"}},
		{"not found", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(404)
		}, "", []string{"answered 404", "check --method, --path and --body"}},
		{"success without a charge", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			fmt.Fprint(w, `{"id": "pay_1", "status": "succeeded"}`)
		}, "", []string{"answered 201", "saw no charge", "start the service with that PSP URL and key"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			if c.handler != nil {
				srv := httptest.NewServer(c.handler)
				defer srv.Close()
				url = srv.URL
			}
			_, err := Run(context.Background(), Options{URL: url, PSPListen: pspAddr(t)})
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("err %v (%T), want a *probe.Error", err, err)
			}
			for _, w := range c.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestBadFlagsAreNamed(t *testing.T) {
	cases := []struct {
		o    Options
		says string
	}{
		{Options{}, "needs the service's base URL"},
		{Options{URL: "http://127.0.0.1:1"}, "--psp-listen"},
		{Options{URL: "http://127.0.0.1:${PORT}", PSPListen: "127.0.0.1:1"}, "no command follows --"},
		{Options{URL: "http://127.0.0.1:1", PSPListen: "127.0.0.1:1", Body: `{"x": 1}`}, "create.body: must contain {{amount}}"},
		{Options{URL: "http://127.0.0.1:1", PSPListen: "127.0.0.1:1", PSPKey: "pk_live"}, "must start with sk_test_"},
		{Options{URL: "http://127.0.0.1:1", PSPListen: "10.1.2.3:1"}, "--psp-listen 10.1.2.3:1"},
		{Options{URL: "http://127.0.0.1:${PORT}", Command: []string{"true"}, PSPListen: "127.0.0.1:1"}, "for a running service"},
		{Options{URL: "http://127.0.0.1:1", PSPListen: "127.0.0.1:1", KeyHeader: "K", KeyBodyField: "k"}, "not both"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), c.o)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: err %v, want it to say %q", c.o, err, c.says)
		}
	}
}

// A command that exits before answering is named with its last output.
func TestCommandThatDiesIsNamed(t *testing.T) {
	_, err := Run(context.Background(), Options{URL: "http://127.0.0.1:${PORT}", Command: []string{"sh", "-c", "echo cannot open the database >&2; exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "exited before answering") || !strings.Contains(err.Error(), "cannot open the database") {
		t.Fatalf("err %v", err)
	}
}
