package bench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/services"
)

// servers are started once per bench run and shared by every section; each
// section makes its own database, schema, topic or key prefix in them.
type servers struct {
	stack *services.Stack // R1: Postgres, Valkey and (when needed) Kafka
	r2    *services.Stack // the second Region's Postgres and Valkey (regions)
	toxi  *faults.Toxiproxy
	pg    string
	admin *pgxpool.Pool
	kc    *kgo.Client
	adm   *kadm.Client
	seq   int
	mu    sync.Mutex
}

func startServers(ctx context.Context, nd need, log io.Writer) (s *servers, err error) {
	s = &servers{}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	var wg sync.WaitGroup
	var r2err error
	if nd.r2 {
		// The second Region starts beside the first: Kafka's JVM is the long pole.
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.r2, r2err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Log: log})
		}()
	}
	s.stack, err = services.Start(ctx, services.Options{Postgres: true, Valkey: true, Kafka: nd.kafka, Log: log})
	wg.Wait()
	if err != nil {
		return s, err
	}
	if r2err != nil {
		return s, fmt.Errorf("second Region: %w", r2err)
	}
	if nd.r2 {
		if s.toxi, err = faults.StartToxiproxy(); err != nil {
			return s, err
		}
	}
	s.pg = s.stack.Postgres.Endpoint()
	if s.admin, err = pgxpool.New(ctx, s.pg); err != nil {
		return s, err
	}
	if nd.kafka {
		if s.kc, err = kgo.NewClient(kgo.SeedBrokers(s.stack.Kafka.Endpoint())); err != nil {
			return s, err
		}
		s.adm = kadm.NewClient(s.kc)
	}
	return s, nil
}

func (s *servers) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if s.kc != nil {
		s.kc.Close()
	}
	if s.admin != nil {
		s.admin.Close()
	}
	for _, st := range []*services.Stack{s.r2, s.stack} {
		if st != nil {
			_ = st.Stop(ctx)
		}
	}
	if s.toxi != nil {
		_ = s.toxi.Stop()
	}
}

func (s *servers) brokers() string { return s.stack.Kafka.Endpoint() }

// name returns a fresh name for a database, topic or schema.
func (s *servers) name(tag string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("bench_%s_%d", tag, s.seq)
}

// database creates a database and returns its DSN and a drop function.
func (s *servers) database(ctx context.Context, name string) (string, func(), error) {
	if _, err := s.admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u, err := url.Parse(s.pg)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		_, _ = s.admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}, nil
}

// topic creates a one-partition topic and returns its delete function.
func (s *servers) topic(ctx context.Context, name string) (func(), error) {
	resp, err := s.adm.CreateTopic(ctx, 1, 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return nil, fmt.Errorf("create topic %s: %w", name, err)
	}
	return func() { _, _ = s.adm.DeleteTopic(context.Background(), name) }, nil
}
