package probe

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/conform/driver"
)

func answer(status int, body string) *driver.Attempt {
	return &driver.Attempt{Status: status, RespBody: body}
}

// Concurrent copies answered 502 say nothing about the first being in
// flight: the probe never maps a 5xx as in_progress (issue 50), and a 409
// beside them still is.
func TestProbeNeverMapsA5xxInProgress(t *testing.T) {
	for _, tc := range []struct {
		copies []*driver.Attempt
		want   string // the in_progress statuses mapped from the copies
	}{
		{[]*driver.Attempt{answer(201, `{"id":"p1","status":"succeeded"}`), answer(502, `{"error":"busy"}`), answer(503, `{}`)}, "[]"},
		{[]*driver.Attempt{answer(201, `{"id":"p1","status":"succeeded"}`), answer(502, `{"error":"busy"}`), answer(409, `{}`)}, "[409]"},
	} {
		s := &seen{statusField: "status", idPath: "id",
			create: answer(201, `{"id":"p1","status":"succeeded"}`), replay: answer(201, `{"id":"p1","status":"succeeded"}`),
			mismatch: answer(422, `{"error":"mismatch"}`), copies: tc.copies, copiesN: 1, gateHeld: true,
			noKey: answer(400, `{"error":"key"}`), declined: answer(402, `{"id":"p2","status":"failed"}`),
			processing: answer(502, `{}`)}
		inf := infer(s)
		var ip, all []int
		for _, r := range inf.rules {
			if r.outcome == "in_progress" {
				all = append(all, r.status...)
				if strings.Contains(r.seen, "concurrent copies") {
					ip = append(ip, r.status...)
				}
			}
		}
		if slices.ContainsFunc(all, func(st int) bool { return st >= 500 }) || fmt.Sprint(ip) != tc.want {
			t.Errorf("copies %v: in_progress statuses %v from the copies (all %v), want %s", statuses(tc.copies), ip, all, tc.want)
		}
		if !strings.Contains(strings.Join(inf.notes, "\n"), "never mapped as in progress") {
			t.Errorf("copies %v: no note on the 5xx: %v", statuses(tc.copies), inf.notes)
		}
		for _, p := range inf.protocol {
			if p.name == "in_progress_status" && strings.HasPrefix(p.value, "5") {
				t.Errorf("in_progress_status %s", p.value)
			}
		}
	}
}

func statuses(as []*driver.Attempt) []int {
	var out []int
	for _, a := range as {
		out = append(out, a.Status)
	}
	return out
}

// A replay that repeats the create's payment under a 409 is read as the
// replay it is (by the status field, first), never as "in progress"; the
// profile's in-progress 409 stays for a 409 without the payment. Copies
// answered 502 are not said to have got "a final answer".
func TestProbeReadsAReplayUnderAnotherStatus(t *testing.T) {
	body := `{"id":"p1","status":"succeeded"}`
	s := &seen{statusField: "status", idPath: "id",
		create: answer(201, body), replay: answer(409, body),
		mismatch: answer(502, `{"error":"psp unavailable"}`),
		copies:   []*driver.Attempt{answer(201, body), answer(502, `{"error":"psp unavailable"}`), answer(502, `{"error":"psp unavailable"}`)},
		copiesN:  1, gateHeld: true,
		noKey: answer(400, `{"error":"key"}`), declined: answer(402, `{"id":"p2","status":"failed"}`),
		processing: answer(502, `{}`)}
	inf := infer(s)
	var got []string
	for _, r := range inf.rules {
		if slices.Contains(r.status, 409) {
			got = append(got, fmt.Sprintf("%s=%s->%s", r.field, r.equals, r.outcome))
		}
	}
	if want := "[status=succeeded->succeeded =->in_progress]"; fmt.Sprint(got) != want {
		t.Errorf("rules for 409 in order %v, want %s", got, want)
	}
	notes := strings.Join(inf.notes, "\n")
	if strings.Contains(notes, "all got a final answer") {
		t.Errorf("the notes say the copies got a final answer, but two got 502:\n%s", notes)
	}
	if !strings.Contains(notes, "the replay answered 409 with the create's payment") {
		t.Errorf("no note on the replay's 409:\n%s", notes)
	}
}
