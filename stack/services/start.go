package services

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Start brings up the servers opts asks for. For each one it tries the
// providers in order: external (its environment variable is set), then
// testcontainers (a Docker engine answers), then local binaries. It prints one
// line per server naming the provider and the server's version. On any error
// it stops what it had started.
func Start(ctx context.Context, opts Options) (*Stack, error) {
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	sweepStale()
	st := &Stack{}
	var docker error
	var dockerOnce sync.Once
	dockerUp := func() bool {
		dockerOnce.Do(func() {
			docker = dockerAnswers(ctx)
			if docker != nil {
				fmt.Fprintf(log, "services: testcontainers declined: %v; using local binaries\n", docker)
			}
		})
		return docker == nil
	}
	kinds := []Kind{}
	if opts.Postgres {
		kinds = append(kinds, Postgres)
	}
	if opts.Valkey {
		kinds = append(kinds, Valkey)
	}
	if opts.Kafka {
		kinds = append(kinds, Kafka)
	}
	if opts.SQS {
		kinds = append(kinds, SQS)
	}
	if opts.RabbitMQ {
		kinds = append(kinds, RabbitMQ)
	}
	// The servers start side by side: Kafka's JVM is the long pole, and the
	// others are ready well before it.
	type result struct {
		svc      Service
		provider string
		proxied  string
		took     time.Duration
		err      error
	}
	results := make([]result, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			r := &results[i]
			r.svc, r.provider, r.proxied, r.err = startOne(ctx, k, opts, dockerUp)
			r.took = time.Since(t0)
		}()
	}
	wg.Wait()
	var errs []error
	providers := map[string]bool{}
	for i, k := range kinds {
		r := results[i]
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		providers[r.provider] = true
		st.set(k, r.svc)
		if k == Kafka {
			st.KafkaProxied = r.proxied
		}
		fmt.Fprintf(log, "services: %-8s %-14s %-10s %s (%.1fs)\n", k, r.provider, r.svc.Version(),
			r.svc.Endpoint(), r.took.Seconds())
	}
	if len(errs) > 0 {
		_ = st.Stop(context.Background())
		return nil, errors.Join(errs...)
	}
	for p := range providers {
		if st.Provider != "" {
			st.Provider += "+"
		}
		st.Provider += p
	}
	track(st)
	return st, nil
}

func startOne(ctx context.Context, k Kind, opts Options, dockerUp func() bool) (Service, string, string, error) {
	if svc, err := startExternal(ctx, k); err != nil || svc != nil {
		return svc, "external", "", err
	}
	if dockerUp() {
		var svc Service
		var err error
		switch k {
		case Postgres:
			svc, err = startContainerPostgres(ctx)
		case Valkey:
			svc, err = startContainerValkey(ctx)
		case SQS:
			svc, err = startContainerElasticMQ(ctx)
		case RabbitMQ:
			svc, err = startContainerRabbitMQ(ctx)
		case Kafka:
			if opts.KafkaAdvertise != nil {
				return nil, "", "", errors.New("kafka (testcontainers): a proxied listener needs the local provider; unset the Docker engine or use IDEMCHECK_KAFKA_BROKERS")
			}
			svc, err = startContainerKafka(ctx)
		}
		return svc, "testcontainers", "", err
	}
	switch k {
	case Postgres:
		svc, err := startLocalPostgres(ctx)
		return svc, "local", "", err
	case Valkey:
		svc, err := startLocalValkey(ctx)
		return svc, "local", "", err
	case SQS:
		svc, err := startLocalElasticMQ(ctx)
		return svc, "local", "", err
	case RabbitMQ:
		svc, err := startLocalRabbitMQ(ctx)
		return svc, "local", "", err
	default:
		svc, proxied, err := startLocalKafka(ctx, opts.KafkaAdvertise)
		return svc, "local", proxied, err
	}
}

func (s *Stack) set(k Kind, svc Service) {
	switch k {
	case Postgres:
		s.Postgres = svc
	case Kafka:
		s.Kafka = svc
	case Valkey:
		s.Valkey = svc
	case SQS:
		s.SQS = svc
	case RabbitMQ:
		s.RabbitMQ = svc
	}
	s.stop = append(s.stop, svc.Stop)
}

// Stop stops every server in reverse order of start; it is safe to call twice.
func (s *Stack) Stop(ctx context.Context) error {
	var errs []error
	for i := len(s.stop) - 1; i >= 0; i-- {
		errs = append(errs, s.stop[i](ctx))
	}
	s.stop = nil
	untrack(s)
	return errors.Join(errs...)
}

var (
	liveMu sync.Mutex
	live   = map[*Stack]bool{}
)

func track(s *Stack)   { liveMu.Lock(); live[s] = true; liveMu.Unlock() }
func untrack(s *Stack) { liveMu.Lock(); delete(live, s); liveMu.Unlock() }

// StopAll stops every stack this process started and has not stopped; a
// program's signal handler calls it so an interrupted run leaves nothing.
func StopAll(ctx context.Context) error {
	liveMu.Lock()
	stacks := make([]*Stack, 0, len(live))
	for s := range live {
		stacks = append(stacks, s)
	}
	liveMu.Unlock()
	var errs []error
	for _, s := range stacks {
		errs = append(errs, s.Stop(ctx))
	}
	return errors.Join(errs...)
}
