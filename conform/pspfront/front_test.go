package pspfront

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func post(t *testing.T, url, key, body string) (int, error) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/payment_intents", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A lost reply follows the PSP key of the first matching request: a client
// library's retry with that key (whatever its body) is lost too, another
// key passes, and nothing is lost once the rule stops. The PSP executes
// every request either way.
func TestLoseFollowsTheKey(t *testing.T) {
	var executed atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		executed.Add(1)
		_, _ = w.Write([]byte(`{"id":"pi_1","latest_charge":"ch_1"}`))
	}))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := f.Add("ord-7", 0, Lose)
	if _, err := post(t, f.URL(), "k1", "amount=10&description=order+ord-7"); err == nil {
		t.Fatal("the matching request got an answer")
	}
	if _, err := post(t, f.URL(), "k1", "amount=10"); err == nil {
		t.Fatal("the retry with the same key got an answer")
	}
	if code, err := post(t, f.URL(), "k2", "amount=10"); err != nil || code != 200 {
		t.Fatalf("another key: %d %v, want 200", code, err)
	}
	r.Stop()
	if code, err := post(t, f.URL(), "k1", "amount=10"); err != nil || code != 200 {
		t.Fatalf("after Stop: %d %v, want 200", code, err)
	}
	if r.Fired() != 2 || executed.Load() != 4 {
		t.Fatalf("fired %d, executed %d; want 2 and 4", r.Fired(), executed.Load())
	}
	ex := f.Exchanges()
	if len(ex) != 4 || !ex[0].Lost || !strings.Contains(ex[0].Body, "description=order ord-7") || !strings.Contains(ex[0].RespBody, "ch_1") {
		t.Fatalf("exchanges %+v", ex)
	}
}

// A Once hold keeps the first matching request's answer only: a second
// request under the same key reaches the PSP and is answered while the
// first is held, and WaitAnswersHeld returns only once the PSP answered the
// first.
func TestOnceHoldsTheFirstOnly(t *testing.T) {
	var executed atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		executed.Add(1)
		_, _ = w.Write([]byte(`{"id":"pi_1"}`))
	}))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := f.Add("ord-9", 0, Hold).Once()
	first := make(chan int, 1)
	go func() {
		code, _ := post(t, f.URL(), "k1", "amount=10&description=order+ord-9")
		first <- code
	}()
	if err := r.WaitAnswersHeld(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if executed.Load() != 1 {
		t.Fatalf("executed %d when the first answer was held, want 1", executed.Load())
	}
	if code, err := post(t, f.URL(), "k1", "amount=10&description=order+ord-9"); err != nil || code != 200 {
		t.Fatalf("the second copy: %d %v, want 200 while the first is held", code, err)
	}
	select {
	case code := <-first:
		t.Fatalf("the first copy was answered %d before Stop", code)
	default:
	}
	r.Stop()
	if code := <-first; code != 200 {
		t.Fatalf("the first copy after Stop: %d, want 200", code)
	}
	if r.Fired() != 1 || executed.Load() != 2 {
		t.Fatalf("fired %d, executed %d; want 1 and 2", r.Fired(), executed.Load())
	}
}

// TestJSONAmounts: a JSON payment request's amount is read as a number or
// as Adyen's money object, so a rule by amount matches either PSP.
func TestJSONAmounts(t *testing.T) {
	for body, want := range map[string]int64{
		`{"amount": 1008, "currency": "usd"}`:                              1008,
		`{"amount": {"value": 1009, "currency": "EUR"}, "reference": "p"}`: 1009,
		`{"reference": "p"}`:                                               0,
		`not json`:                                                         0,
	} {
		if _, got := decode("application/json; charset=utf-8", []byte(body)); got != want {
			t.Errorf("%s: amount %d, want %d", body, got, want)
		}
	}
}
