package mrec

import (
	"reflect"
	"testing"
	"time"
)

func TestLSNRoundTrip(t *testing.T) {
	for _, s := range []string{"0/0", "0/16B3748", "1A/FFFFFFFF"} {
		v, err := ParseLSN(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatLSN(v); got != s {
			t.Errorf("FormatLSN(ParseLSN(%q)) = %q", s, got)
		}
	}
	a, _ := ParseLSN("0/FFFFFFFF")
	b, _ := ParseLSN("1/0")
	if a >= b {
		t.Errorf("0/FFFFFFFF (%d) should sort before 1/0 (%d)", a, b)
	}
	for _, bad := range []string{"", "16B3748", "x/1", "1/y"} {
		if _, err := ParseLSN(bad); err == nil {
			t.Errorf("ParseLSN(%q) accepted", bad)
		}
	}
}

func TestParseChangesKeepsOnlyCommittedItemsOfTheTable(t *testing.T) {
	lsns := []string{"0/10", "0/11", "0/12", "0/13", "0/14", "0/20", "0/21", "0/22", "0/30", "0/31"}
	data := []string{
		"BEGIN",
		"table s_w.payments: INSERT: payment_id[text]:'pay_7' caller_id[text]:'u1' state[text]:'PENDING'",
		"table s_w.outbox: INSERT: id[bigint]:1 event_id[text]:'pay_7:SUCCEEDED' payment_id[text]:'pay_7'",
		"table s_other.payments: UPDATE: payment_id[text]:'pay_9' state[text]:'SUCCEEDED'",
		"COMMIT",
		"BEGIN",
		"table s_w.payments: UPDATE: payment_id[text]:'pay_o''brien' state[text]:'SUCCEEDED'",
		"COMMIT",
		"BEGIN", // not committed yet in this batch: left for the next peek
		"table s_w.payments: UPDATE: payment_id[text]:'pay_8' state[text]:'UNKNOWN'",
	}
	got, err := ParseChanges("s_w.payments", lsns, data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{ID: "pay_7", LSN: 0x14}, {ID: "pay_o'brien", LSN: 0x22}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseChanges = %+v, want %+v", got, want)
	}
}

func TestPercentile(t *testing.T) {
	var lags []time.Duration
	for i := 100; i >= 1; i-- {
		lags = append(lags, time.Duration(i)*time.Millisecond)
	}
	if p := Percentile(lags, 50); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := Percentile(lags, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty p50 not 0")
	}
}
