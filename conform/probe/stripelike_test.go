package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/conform/config"
)

// stripeLike is a service with the key in a body field and Stripe's error
// shapes: 400 idempotency_error on a mismatch, Idempotent-Replayed on a
// replay, 409 while a key runs, and a PSP 500 answered 500 and forgotten.
type stripeLike struct {
	psp string
	// mismatch is the status of a mismatch (Stripe: 400).
	mismatch int
	// replayStatus, when set, is the status a replay carries the stored
	// answer with (django-idempotency-key's default: 409).
	replayStatus int
	mu           sync.Mutex
	// done: key -> amount and answer (nil while in progress)
	amount map[string]int64
	answer map[string][]byte
}

func (s *stripeLike) fail(w http.ResponseWriter, status int, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error": {"type": %q, "message": "%s"}}`, typ, typ)
}

func (s *stripeLike) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == "GET" {
		w.WriteHeader(404)
		return
	}
	var b struct {
		Amount int64  `json:"amount"`
		PM     string `json:"payment_method"`
		Key    string `json:"idempotency_key"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		s.fail(w, 400, "invalid_request_error")
		return
	}
	if b.Key == "" {
		s.fail(w, 400, "invalid_request_error")
		return
	}
	s.mu.Lock()
	if a, ok := s.amount[b.Key]; ok {
		ans := s.answer[b.Key]
		s.mu.Unlock()
		switch {
		case a != b.Amount:
			s.fail(w, s.mismatch, "idempotency_error")
		case ans == nil:
			s.fail(w, 409, "lock_timeout")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			if s.replayStatus != 0 {
				w.WriteHeader(s.replayStatus)
			}
			_, _ = w.Write(ans)
		}
		return
	}
	s.amount[b.Key] = b.Amount
	s.mu.Unlock()
	form := url.Values{"amount": {fmt.Sprint(b.Amount)}, "currency": {"usd"}, "payment_method": {b.PM}, "confirm": {"true"}}
	req, _ := http.NewRequest("POST", s.psp+"/v1/payment_intents", strings.NewReader(form.Encode()))
	req.Header.Set("Authorization", "Bearer "+DefaultPSPKey)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Idempotency-Key", "svc-"+b.Key)
	resp, err := http.DefaultClient.Do(req)
	status := 0
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
	}
	var ans []byte
	switch {
	case status == 200:
		ans = []byte(fmt.Sprintf(`{"id": "ch_%s", "object": "charge", "status": "succeeded"}`, b.Key[:8]))
	case status == 402:
		ans = []byte(fmt.Sprintf(`{"id": "ch_%s", "object": "charge", "status": "failed"}`, b.Key[:8]))
	default:
		s.mu.Lock()
		delete(s.amount, b.Key) // a 5xx is not stored: the key is free again
		s.mu.Unlock()
		s.fail(w, 500, "api_error")
		return
	}
	s.mu.Lock()
	s.answer[b.Key] = ans
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status == 402 {
		w.WriteHeader(402)
	}
	_, _ = w.Write(ans)
}

// The probe finds a body-field key, Stripe's profile and every status of a
// service shaped like Stripe's API, and writes a config that loads.
func TestProbeOfAStripeShapedService(t *testing.T) {
	addr := pspAddr(t)
	svc := httptest.NewServer(&stripeLike{psp: "http://" + addr, mismatch: 400, amount: map[string]int64{}, answer: map[string][]byte{}})
	defer svc.Close()
	text, err := Run(context.Background(), Options{URL: svc.URL, PSPListen: addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("config:\n%s", text)
	if _, err := config.Parse("probed", []byte(text)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`key: {body_field: "idempotency_key"}`, `payment_id: "id"`,
		`- {status: [200], field: "status", equals: "succeeded", outcome: succeeded}`,
		`- {status: [402], field: "status", equals: "failed", outcome: failed}`,
		`- {status: [409], outcome: in_progress}`, `- {status: [400], field: "error.type", equals: "idempotency_error", outcome: mismatch}`,
		"profile: stripe", "mismatch_status: 400", `mismatch_code: "idempotency_error"`, "in_progress_status: 409",
		"missing_key_status: 400", `replay_header: "Idempotent-Replayed"`, "stores_5xx: not_stored", "problem_json: false",
		`fakepsp_listen: "` + addr + `"`, "# lookup: not set: GET /payments/<id> answered 404",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("config lacks %q", want)
		}
	}
	if strings.Contains(text, "quoted_key_same") {
		t.Errorf("a body-field key cannot be quoted: quoted_key_same should not be written")
	}
}

// A mismatch and an in-progress copy with one status are told apart by the
// error code, the mismatch rule first.
func TestProbeTellsSharedStatusesApartByCode(t *testing.T) {
	addr := pspAddr(t)
	svc := httptest.NewServer(&stripeLike{psp: "http://" + addr, mismatch: 409, amount: map[string]int64{}, answer: map[string][]byte{}})
	defer svc.Close()
	text, err := Run(context.Background(), Options{URL: svc.URL, PSPListen: addr})
	if err != nil {
		t.Fatal(err)
	}
	mis := `- {status: [409], field: "error.type", equals: "idempotency_error", outcome: mismatch}`
	ip := `- {status: [409], outcome: in_progress}`
	i, j := strings.Index(text, mis), strings.Index(text, ip)
	if i < 0 || j < 0 || i > j {
		t.Errorf("want %q before %q in:\n%s", mis, ip, text)
	}
	if !strings.Contains(text, "profile: custom") || !strings.Contains(text, "mismatch_status: 409") {
		t.Errorf("want profile custom with mismatch_status 409:\n%s", text)
	}
}

// A service that replays the stored answer under a 409 deduplicated its
// key: the probe says so (never "the service seems to ignore the key") and
// reads that 409 with the payment as the replay, ahead of the 409 that
// means in progress.
func TestProbeOfAReplayUnderA409(t *testing.T) {
	addr := pspAddr(t)
	svc := httptest.NewServer(&stripeLike{psp: "http://" + addr, mismatch: 400, replayStatus: 409, amount: map[string]int64{}, answer: map[string][]byte{}})
	defer svc.Close()
	text, err := Run(context.Background(), Options{URL: svc.URL, PSPListen: addr})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Parse("probed", []byte(text)); err != nil {
		t.Fatal(err)
	}
	replay := `- {status: [409], field: "status", equals: "succeeded", outcome: succeeded}`
	for _, want := range []string{"made no new charge (it answered 409 with the same payment)", replay, `- {status: [409], outcome: in_progress}`} {
		if !strings.Contains(text, want) {
			t.Errorf("config lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "NO key placement") {
		t.Errorf("the probe says no key placement deduplicated:\n%s", text)
	}
	if strings.Index(text, replay) > strings.Index(text, `- {status: [409], outcome: in_progress}`) {
		t.Errorf("the in-progress 409 rule comes before the replay's, so it would read the replay:\n%s", text)
	}
}
