package pspfront

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func armed(f *Front) (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rules), len(f.spent)
}

// TestSpentRulesLeaveTheScan: a stopped rule and a Once rule that fired
// are no longer matched against each request (a soak arms one for every
// faulted intent); the spent one still holds what it held until stopped,
// by Stop or by Close.
func TestSpentRulesLeaveTheScan(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"id":"pi_1"}`)) }))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	gate := f.Add("ord-a", 0, Gate)
	lose := f.Add("ord-b", 0, Lose)
	hold := f.Add("ord-c", 0, Hold).Once()
	if n, s := armed(f); n != 3 || s != 0 {
		t.Fatalf("%d armed, %d spent; want 3 and 0", n, s)
	}
	gate.Stop()
	gate.Stop()
	if n, _ := armed(f); n != 2 {
		t.Fatalf("%d armed after a Stop, want 2", n)
	}
	held := make(chan int, 1)
	go func() {
		code, _ := post(t, f.URL(), "k1", "amount=10&description=order+ord-c")
		held <- code
	}()
	if err := hold.WaitAnswersHeld(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if n, s := armed(f); n != 1 || s != 1 {
		t.Fatalf("%d armed, %d spent after the Once rule fired; want 1 and 1", n, s)
	}
	if code, err := post(t, f.URL(), "k1", "amount=10&description=order+ord-c"); err != nil || code != 200 || hold.Fired() != 1 {
		t.Fatalf("a second copy: %d %v, the rule fired %d; want it answered and the rule fired once", code, err, hold.Fired())
	}
	if _, err := post(t, f.URL(), "k2", "description=order+ord-b"); err == nil || lose.Fired() != 1 {
		t.Fatalf("the armed Lose rule: error %v, fired %d; want the answer lost once", err, lose.Fired())
	}
	select {
	case code := <-held:
		t.Fatalf("the held answer came (%d) before the spent rule was stopped", code)
	default:
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	<-held
	if n, s := armed(f); n != 0 || s != 0 || !hold.stopped || !lose.stopped {
		t.Fatalf("after Close: %d armed, %d spent, hold stopped %v, lose stopped %v; want every rule stopped and gone", n, s, hold.stopped, lose.stopped)
	}
}
