package deliverybench

import (
	"context"
	"strings"
	"testing"
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
