package deliverybench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/launch"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/push"
	"github.com/idemcheck/idemcheck/targets/relay"
	"github.com/idemcheck/idemcheck/targets/worker"
)

// env is one run's database, topics and tier processes; close undoes all of
// it, whatever step failed.
type env struct {
	name    string
	dir     string
	admin   *pgxpool.Pool
	pool    *pgxpool.Pool
	kc      *kgo.Client
	adm     *kadm.Client
	topics  []string
	procs   []*faults.Process
	pushURL string
	dbMade  bool
}

func newEnv(ctx context.Context, cfg Config) (e *env, err error) {
	e = &env{name: cfg.Name, dir: cfg.Dir}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	if e.admin, err = open(ctx, cfg.PostgresDSN); err != nil {
		return nil, err
	}
	if _, err = e.admin.Exec(ctx, "CREATE DATABASE "+e.name); err != nil {
		return nil, fmt.Errorf("deliverybench: create database %s: %w", e.name, err)
	}
	e.dbMade = true
	dsn, err := withDatabase(cfg.PostgresDSN, e.name)
	if err != nil {
		return nil, err
	}
	if e.pool, err = open(ctx, dsn); err != nil {
		return nil, err
	}
	if err = ledger.Migrate(ctx, e.pool); err != nil {
		return nil, err
	}
	if err = worker.Migrate(ctx, e.pool); err != nil {
		return nil, err
	}
	if e.kc, err = kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...)); err != nil {
		return nil, fmt.Errorf("deliverybench: kafka: %w", err)
	}
	e.adm = kadm.NewClient(e.kc)
	topic := e.name + "-path"
	if err = e.createTopic(ctx, topic); err != nil {
		return nil, err
	}
	brokers := strings.Join(cfg.Brokers, ",")
	if e.pushURL, err = e.start(ctx, "push", push.TierName); err != nil {
		return nil, err
	}
	if _, err = e.start(ctx, "worker-1", worker.TierName, "-name", "worker-1", "-postgres", dsn, "-brokers", brokers,
		"-topic", topic, "-group", e.name+"-workers", "-push", e.pushURL); err != nil {
		return nil, err
	}
	if _, err = e.start(ctx, "relay-1", relay.TierName, "-postgres", dsn, "-brokers", brokers, "-topic", topic); err != nil {
		return nil, err
	}
	return e, nil
}

// withDatabase points a postgres:// DSN at another database of its cluster.
func withDatabase(dsn, db string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("deliverybench: Postgres DSN: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

// start runs a tier and returns its public URL (push) once it published its
// addresses.
func (e *env) start(ctx context.Context, name, tierName string, args ...string) (string, error) {
	t, err := launch.Start(ctx, launch.Spec{Dir: e.dir, Name: name, Tier: tierName, Args: args,
		Track: func(p *faults.Process) { e.procs = append(e.procs, p) }})
	if err != nil {
		return "", fmt.Errorf("deliverybench: %w", err)
	}
	return t.Addrs["push"], nil
}

// createTopic makes a one-partition topic and waits until the broker serves
// it: a producer that meets UNKNOWN_TOPIC_OR_PARTITION a few times in a row
// (the metadata of a just-created topic can lag) fails its records.
func (e *env) createTopic(ctx context.Context, topic string) error {
	resp, err := e.adm.CreateTopic(ctx, 1, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("deliverybench: create topic %s: %w", topic, err)
	}
	e.topics = append(e.topics, topic)
	deadline := time.Now().Add(30 * time.Second)
	for {
		md, err := e.adm.Metadata(ctx, topic)
		if err == nil {
			if t, ok := md.Topics[topic]; ok && t.Err == nil {
				if p, ok := t.Partitions[0]; ok && p.Err == nil && p.Leader >= 0 {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("deliverybench: topic %s has no leader after 30s: %v", topic, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// logTails returns the end of every tier's log, for an error report: the
// logs go with the run's directory.
func (e *env) logTails() string {
	var b strings.Builder
	for _, p := range e.procs {
		data, err := os.ReadFile(p.LogPath())
		if err != nil {
			continue
		}
		if len(data) > 4<<10 {
			data = data[len(data)-4<<10:]
		}
		fmt.Fprintf(&b, "\n--- %s (%s), last %d bytes:\n%s", p.Name(), p.LogPath(), len(data), data)
	}
	return b.String()
}

// pids are the running tiers' process ids by name.
func (e *env) pids() map[string]int {
	out := make(map[string]int, len(e.procs))
	for _, p := range e.procs {
		out[p.Name()] = p.PID()
	}
	return out
}

func (e *env) stopTiers() {
	for i := len(e.procs) - 1; i >= 0; i-- {
		_ = e.procs[i].Stop(5 * time.Second)
	}
	e.procs = nil
}

func (e *env) close() {
	e.stopTiers()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if e.adm != nil {
		if len(e.topics) > 0 {
			_, _ = e.adm.DeleteTopics(ctx, e.topics...)
		}
		e.kc.Close()
	}
	if e.pool != nil {
		e.pool.Close()
	}
	if e.admin != nil {
		if e.dbMade {
			_, _ = e.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+e.name+" WITH (FORCE)")
		}
		e.admin.Close()
	}
}
