package webhook

import (
	"testing"
	"time"
)

func TestSignVerify(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	now := time.Unix(1_800_000_000, 0)
	h := Sign(body, "whsec_a", now)
	if err := Verify(h, body, "whsec_a", now, 300*time.Second); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}
	if err := Verify(h, body, "whsec_b", now, 300*time.Second); err == nil {
		t.Fatal("wrong secret accepted")
	}
	if err := Verify(h, []byte(`{"id":"evt_2"}`), "whsec_a", now, 300*time.Second); err == nil {
		t.Fatal("tampered body accepted")
	}
	if err := Verify(h, body, "whsec_a", now.Add(301*time.Second), 300*time.Second); err == nil {
		t.Fatal("stale timestamp accepted")
	}
	if err := Verify("garbage", body, "whsec_a", now, 0); err == nil {
		t.Fatal("malformed header accepted")
	}
}
