package scenario

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/pspfront"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// frontSpills are this process's open spill files of a recording front
// (unlinked at creation, so reached through /proc/self/fd).
func frontSpills(t *testing.T) map[string]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	out := map[string]bool{}
	for _, fd := range fds {
		p := filepath.Join("/proc/self/fd", fd.Name())
		if l, err := os.Readlink(p); err == nil && strings.Contains(l, "idemcheck-pspfront-") {
			out[p] = true
		}
	}
	return out
}

// TestAttributionNotKeptFromALostExchange: an attribution made while a
// chunk of the front's exchanges could not be read back (here the one whose
// request named the order of a charge) is not kept: every later ask reads
// the exchanges again, so each check judged on them is Errored by
// ReadError, not only the first to take it, whether or not the service
// made exchanges since.
func TestAttributionNotKeptFromALostExchange(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("loses a chunk through /proc/self/fd")
	}
	f, send := answeringFront(t)
	fx := &growingEffects{}
	e := &Env{Effects: fx, Front: f}
	ctx := context.Background()
	sent(e, "ord-a", 10)
	sent(e, "ord-b", 10) // same amount: ch_1 is ord-a's by its request only
	fx.add(charge("k1", 10, nil, "ch_1"))
	open := frontSpills(t)
	send(pspfront.Exchange{Method: "POST", Path: "/v1/payment_intents", Key: "k1", Body: "description=ord-a", RespBody: `{"latest_charge":"ch_1"}`})
	for range spill.ChunkLen {
		send(pspfront.Exchange{Method: "GET", Path: "/v1/payment_intents/pi_1"})
	}
	var ours []string
	for p := range frontSpills(t) {
		if !open[p] {
			ours = append(ours, p)
		}
	}
	if len(ours) != 1 {
		t.Fatalf("%d new spill files of a front, want the one of this test's", len(ours))
	}
	if a, _ := e.attribute(ctx); len(a.By["ord-a"]) != 1 || a.How[ByRequest] != 1 {
		t.Fatalf("before the chunk is lost: By %v how %v, want ch_1 ord-a's by its request", a.By, a.How)
	}
	e.forgetJudged()
	w, err := os.OpenFile(ours[0], os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.WriteAt([]byte(strings.Repeat("\xff", 32)), 0)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, grown := range []bool{false, true} {
		e.forgetJudged()
		if _, _ = e.attribute(ctx); takeReadError(e) == nil {
			t.Fatal("the first ask after the loss: no read error")
		}
		if grown {
			send(pspfront.Exchange{Method: "GET", Path: "/v1/payment_intents/pi_2"})
		}
		a, _ := e.attribute(ctx)
		if err := takeReadError(e); err == nil {
			t.Fatalf("the next ask (new exchanges: %v): no read error, and ch_1 served as %v (how %v): a check judged on it is not Errored", grown, a.By, a.How)
		}
	}
}
