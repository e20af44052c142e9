package services

import (
	"context"
	"os"
	"testing"
	"time"
)

// BenchmarkStartup prints the time to bring up each server, and all three, with
// the provider Start chooses (local on a machine without Docker). Goal: all
// three under 20 s on a 2-core machine.
func BenchmarkStartup(b *testing.B) {
	cases := []struct {
		name string
		opts Options
	}{
		{"postgres", Options{Postgres: true}},
		{"valkey", Options{Valkey: true}},
		{"kafka", Options{Kafka: true}},
		{"all-three", Options{Postgres: true, Valkey: true, Kafka: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var up time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				opts := c.opts
				opts.Log = os.Stderr
				st, err := Start(ctx, opts)
				if err != nil {
					b.Fatal(err)
				}
				up += time.Since(start)
				b.StopTimer()
				if err := st.Stop(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(up.Seconds()/float64(b.N), "s/up")
		})
	}
}
