package fakepsp_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// receiver is a webhook endpoint that checks each delivery's signature and
// refuses the first attempt of one event type, so a retry is in the
// transcript too.
type receiver struct {
	failFirst string
	mu        sync.Mutex
	tries     map[string]int
	got       []string
	ok        int
	fails     int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var ev struct{ ID, Type string }
	_ = json.Unmarshal(body, &ev)
	sig := "signature bad"
	if ts, v1, ok := splitSig(r.Header.Get("Stripe-Signature")); ok {
		mac := hmac.New(sha256.New, []byte(trSecret))
		mac.Write([]byte(ts + "." + string(body)))
		if hex.EncodeToString(mac.Sum(nil)) == v1 {
			sig = "signature ok"
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.tries[ev.ID]++
	if ev.Type == rc.failFirst && rc.tries[ev.ID] == 1 {
		rc.fails++
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	rc.ok++
	rc.got = append(rc.got, fmt.Sprintf("received %s try %d %s %s", sig, rc.tries[ev.ID], r.Header.Get("Content-Type"), body))
}

func splitSig(h string) (ts, v1 string, ok bool) {
	for _, part := range strings.Split(h, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	return ts, v1, ts != "" && v1 != ""
}

func (rc *receiver) acked() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.ok
}

func (rc *receiver) failedOnce() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.fails
}

// lines are the deliveries the receiver accepted; the caller sorts them
// once masked: their order on the wire is the delivery engine's.
func (rc *receiver) lines() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.got...)
}
