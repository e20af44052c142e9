package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// TestRegionFieldRoundTrips: the optional region of a client op (which Region
// answered it) is read by both the fast and the slow line decoder, is no
// unknown-field warning, and is written back.
func TestRegionFieldRoundTrips(t *testing.T) {
	lines := []string{
		`{"process":"phone-1","op":"create","call":1,"return":2,"intent":"payments:u1:K1","region":"R2","input":{"fingerprint":"f","amount":3000,"currency":"USD"},"output":{"outcome":"in_progress"}}`,
		// Another key order and spacing: the slow path decodes this one.
		`{ "region" : "R1", "process":"phone-1","op":"create","call":3,"return":4,"intent":"payments:u1:K1","input":{"fingerprint":"f","amount":3000,"currency":"USD"},"output":{"outcome":"in_progress"}}`,
	}
	h, warns, err := history.ReadJSONLWith(strings.NewReader(strings.Join(lines, "\n")), history.ReadOptions{})
	if err != nil || len(warns) != 0 {
		t.Fatalf("read: %v, warnings %v", err, warns)
	}
	if len(h) != 2 || h[0].Region != "R2" || h[1].Region != "R1" {
		t.Fatalf("regions read: %+v", h)
	}
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), `"region":"R`) != 2 {
		t.Fatalf("regions not written back:\n%s", b.String())
	}
}
