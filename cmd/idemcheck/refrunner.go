package main

import (
	"context"
	"io"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/reference"
	servers "github.com/idemcheck/idemcheck/stack/services"
)

// referenceRunner runs the reference stack (with the switches of mut) on
// servers started once for every run it makes, as the kill matrix does:
// each run still names its own databases, key prefixes and topics. stop
// stops the servers.
func referenceRunner(ctx context.Context, mut string) (run func(context.Context, conform.Options) (int, *report.Report), stop func(), err error) {
	svc, err := servers.Start(ctx, servers.Options{Postgres: true, Valkey: true, Kafka: true, Log: io.Discard})
	if err != nil {
		return nil, nil, err
	}
	run = func(ctx context.Context, o conform.Options) (int, *report.Report) {
		return reference.RunStack(ctx, o, reference.Stack{Mutants: mut, Services: svc})
	}
	return run, func() { _ = svc.Stop(context.WithoutCancel(ctx)) }, nil
}
