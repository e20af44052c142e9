package deliverybench

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRunRefusesBadInputBeforeTouchingServers(t *testing.T) {
	cases := map[string]Config{
		"DSN and Kafka brokers are required": {Brokers: []string{"127.0.0.1:1"}},
		"name \"Bad-Name\"":                  {PostgresDSN: "postgres://x@127.0.0.1:1/db", Brokers: []string{"127.0.0.1:1"}, Name: "Bad-Name"},
		"name \"9lives\"":                    {PostgresDSN: "postgres://x@127.0.0.1:1/db", Brokers: []string{"127.0.0.1:1"}, Name: "9lives"},
	}
	for want, cfg := range cases {
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: got %v, want an error containing %q", cfg, err, want)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	got, err := withDatabase("postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "dbench_1")
	if err != nil || got != "postgres://postgres@127.0.0.1:5432/dbench_1?sslmode=disable" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestMedianAndRounds(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{ms(412), 412 * time.Millisecond},
		{ms(430, 398, 412), 412 * time.Millisecond},
		{ms(30, 90, 20, 40), 30 * time.Millisecond}, // the lower middle
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	in := ms(430, 398, 412)
	_ = median(in)
	if got := Rounds(in); got != "430, 398, 412 ms" {
		t.Errorf("Rounds = %q: the rounds must print in the order run, untouched by median", got)
	}
}
