package fakepsp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is written by RunStandalone while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRunStandalone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- RunStandalone(ctx, []string{"--listen", "127.0.0.1:0", "--secret-key", "sk_test_standalone1234", "--key-window", "2h"}, &out, &errOut)
	}()
	waitFor(t, "the printed keys", 5*time.Second, func() bool { return strings.Contains(out.String(), "webhook_secret=") })
	vals := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		vals[k] = v
	}
	if vals["secret_key"] != "sk_test_standalone1234" || !strings.HasPrefix(vals["url"], "http://127.0.0.1:") || !strings.HasPrefix(vals["webhook_secret"], "whsec_") {
		t.Fatalf("printed: %q", out.String())
	}
	a, err := do(t, client(5*time.Second), "POST", vals["url"]+"/v1/payment_intents", vals["secret_key"], "k", "application/x-www-form-urlencoded", payment("100", "pm_card_visa", "pay_1").Encode())
	if err != nil || a.status != 200 {
		t.Fatalf("standalone PSP: %v %d", err, a.status)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errOut.String())
	}
	// Stripe's delivery freedoms are on unless turned off, and said.
	if s := errOut.String(); !strings.Contains(s, "25% of the events are delivered a second time") || !strings.Contains(s, "50% of the events are delivered 150ms to 300ms late") {
		t.Errorf("the freedoms are not said on: %s", s)
	}
	assertNoLeaks(t)
}

func TestRunStandaloneBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--listen", "0.0.0.0:0"},
		{"--listen", "nonsense"},
		{"--key-window", "0s"},
		{"--webhook-factor", "0.5"},
		{"--secret-key", "sk_live_x"},
		{"--webhook-secret", "nope"},
		{"--rate-account", "-1"},
		{"--bogus"},
		{"extra-arg"},
		{"--webhook-duplicates=maybe"},
		{"--dialect", "paypal"},
		{"--dialect", "adyen", "--webhook-secret", "whsec_abc"},
		{"--dialect", "adyen", "--webhook-secret", "ABCD"},
	} {
		var errOut bytes.Buffer
		// Bounded: input that is wrongly accepted starts a PSP, which
		// serves until its context ends; the case then fails, not hangs.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c := RunStandalone(ctx, args, io.Discard, &errOut)
		cancel()
		if c != 2 || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, c, errOut.String())
		}
	}
}

// TestRunStandaloneFreedomsOff: each freedom has its own flag, and the
// console says it is off.
func TestRunStandaloneFreedomsOff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- RunStandalone(ctx, []string{"--webhook-duplicates=false", "--webhook-out-of-order=false", "--seed", "9"}, &out, &errOut)
	}()
	waitFor(t, "the printed keys", 5*time.Second, func() bool { return strings.Contains(out.String(), "webhook_secret=") })
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errOut.String())
	}
	s := errOut.String()
	if !strings.Contains(s, "no event is delivered twice") || !strings.Contains(s, "events arrive in the order they were raised") || !strings.Contains(s, "(seed 9)") {
		t.Errorf("the freedoms are not said off: %s", s)
	}
	assertNoLeaks(t)
}
