package reactions

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
)

func TestDeviceJournalsAndResendsUnchanged(t *testing.T) {
	var got []Write
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var wr Write
		_ = json.NewDecoder(r.Body).Decode(&wr)
		got = append(got, wr)
		_ = json.NewEncoder(w).Encode(Result{Applied: true, State: wr.Value()})
	}))
	defer ok.Close()
	// A path that drops the connection after reading the request: no answer.
	lost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	defer lost.Close()

	rec := history.NewRecorder()
	d := NewDevice("D1", 41, rec)
	like := d.Tap("u1/p1", Like)
	if r := d.Send(context.Background(), "D1-cell", lost.URL, like); r.Known {
		t.Fatalf("lost reply reported known: %+v", r)
	}
	d.Clock.Advance(-time.Hour)
	unlike := d.Tap("u1/p1", Unlike)
	if like.Counter != 41 || unlike.Counter != 42 || unlike.PhoneTime >= like.PhoneTime {
		t.Fatalf("journal: like %+v unlike %+v", like.Write, unlike.Write)
	}
	if u := d.Unacked(); len(u) != 2 {
		t.Fatalf("unacked = %d, want 2", len(u))
	}
	if r := d.Send(context.Background(), "D1-cell", ok.URL, like); !r.Known || r.Result.State != Liked {
		t.Fatalf("resend: %+v", r)
	}
	if len(got) != 1 || got[0] != like.Write {
		t.Fatalf("the resend must carry the journal entry unchanged: %+v vs %+v", got, like.Write)
	}
	if u := d.Unacked(); len(u) != 1 || u[0] != unlike {
		t.Fatalf("unacked after the resend: %+v", u)
	}
	h := rec.History()
	if len(h) != 2 || h[0].Return != nil || h[1].Output.Outcome != history.OutcomeOK || *h[1].Input.Counter != 41 {
		t.Fatalf("history: %+v", h)
	}
}

func TestWriteCheck(t *testing.T) {
	good := Write{Device: "D1", Item: "p1", Action: Like, Counter: 1}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []Write{{Item: "p1", Action: Like, Counter: 1}, {Device: "D1", Action: Like, Counter: 1},
		{Device: "D1", Item: "p1", Action: "love", Counter: 1}, {Device: "D1", Item: "p1", Action: Unlike}} {
		if w.Check() == nil {
			t.Errorf("%+v accepted", w)
		}
	}
	if (Write{Action: Unlike}).Value() != Unliked || good.Value() != Liked {
		t.Fatal("Value")
	}
}

func TestHandlerRejectsBadWrites(t *testing.T) {
	// Bad input is answered before the database is touched, so no pool.
	srv := httptest.NewServer(Handler(nil, nil, log.New(io.Discard, "", 0)))
	defer srv.Close()
	for body, field := range map[string]string{
		`{"item":"p1","action":"like","counter":1}`:               "device",
		`{"device":"D1","item":"p1","action":"love","counter":1}`: "action",
		`{"device":"D1","item":"p1","action":"like"}`:             "counter",
		`{"device":`: "body",
	} {
		resp, err := http.Post(srv.URL+Path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(string(msg), field) {
			t.Errorf("%s: %d %q, want 400 naming %s", body, resp.StatusCode, msg, field)
		}
	}
}
