package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/valkey-io/valkey-go"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/services"
	"github.com/idemcheck/idemcheck/targets/keystore"
)

// Need names the servers a suite uses. The provider (local binaries, or
// testcontainers) is the services package's choice, from the environment.
type Need struct {
	Postgres, Valkey, Kafka bool
	// Toxiproxy starts a Toxiproxy for the suite's links (Env.Toxi).
	Toxiproxy bool
	// KafkaLink advertises Kafka's second listener through a Toxiproxy link
	// (Env.KafkaLink, bootstrap Env.KafkaProxied): a fault on it reaches a
	// client however the broker redirects it. Implies Toxiproxy.
	KafkaLink bool
	// Log gets the servers' start-up lines; default GinkgoWriter.
	Log io.Writer
	// Setup runs once the servers are up, before the first spec (a check
	// the suite needs of them, a sweep of what a killed run left).
	Setup func(ctx context.Context, e *Env) error
}

// Env is a suite's running servers and the clients every world shares.
type Env struct {
	Stack *services.Stack
	Toxi  *faults.Toxiproxy
	// KafkaLink fronts Kafka's proxied listener (Need.KafkaLink).
	KafkaLink    *faults.Link
	KafkaProxied string
	// Postgres is the cluster's DSN; Admin a pool on it (worlds create
	// their databases through it).
	Postgres string
	Admin    *pgxpool.Pool
	// Brokers is Kafka's direct bootstrap; KafkaAdmin creates topics.
	Brokers    string
	Kafka      *kgo.Client
	KafkaAdmin *kadm.Client
	// ValkeyAddr and Valkey are set when Need.Valkey.
	ValkeyAddr string
	Valkey     valkey.Client
}

// Servers starts the servers before the suite's first spec and stops them
// after its last. Call it once, at package level: it registers the suite's
// BeforeSuite, and the *Env it returns is filled in there.
func Servers(n Need) *Env {
	e := &Env{}
	ginkgo.BeforeSuite(func(ctx ginkgo.SpecContext) {
		if n.Log == nil {
			n.Log = ginkgo.GinkgoWriter
		}
		s, err := StartServers(ctx, n)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		*e = *s
		ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) { gomega.Expect(e.Stop(ctx)).To(gomega.Succeed()) }, ginkgo.NodeTimeout(2*time.Minute))
	}, ginkgo.NodeTimeout(4*time.Minute))
	return e
}

// StartServers starts what n names (outside Ginkgo too: a benchmark's
// servers). On error nothing is left running.
func StartServers(ctx context.Context, n Need) (*Env, error) {
	if n.Log == nil {
		n.Log = io.Discard
	}
	e := &Env{}
	fail := func(err error) (*Env, error) {
		return nil, errors.Join(err, e.Stop(context.WithoutCancel(ctx)))
	}
	if n.Toxiproxy || n.KafkaLink {
		var err error
		if e.Toxi, err = faults.StartToxiproxy(); err != nil {
			return nil, err
		}
	}
	opts := services.Options{Postgres: n.Postgres, Valkey: n.Valkey, Kafka: n.Kafka, Log: n.Log}
	if n.KafkaLink {
		opts.KafkaAdvertise = func(listener string) (string, error) {
			l, err := e.Toxi.Link("kafka", listener)
			if err != nil {
				return "", err
			}
			e.KafkaLink = l
			return l.Addr(), nil
		}
	}
	st, err := services.Start(ctx, opts)
	if err != nil {
		return fail(err)
	}
	e.Stack = st
	if n.Postgres {
		e.Postgres = st.Postgres.Endpoint()
		if e.Admin, err = pgxpool.New(ctx, e.Postgres); err != nil {
			return fail(fmt.Errorf("postgres admin pool: %w", err))
		}
	}
	if n.Kafka {
		e.Brokers, e.KafkaProxied = st.Kafka.Endpoint(), st.KafkaProxied
		if e.Kafka, err = kgo.NewClient(kgo.SeedBrokers(e.Brokers)); err != nil {
			return fail(fmt.Errorf("kafka admin client: %w", err))
		}
		e.KafkaAdmin = kadm.NewClient(e.Kafka)
	}
	if n.Valkey {
		e.ValkeyAddr = st.Valkey.Endpoint()
		if e.Valkey, err = keystore.Dial(e.ValkeyAddr); err != nil {
			return fail(fmt.Errorf("valkey client: %w", err))
		}
	}
	if n.Setup != nil {
		if err := n.Setup(ctx, e); err != nil {
			return fail(err)
		}
	}
	return e, nil
}

// Stop closes the clients and stops the servers and Toxiproxy.
func (e *Env) Stop(ctx context.Context) error {
	if e.Valkey != nil {
		e.Valkey.Close()
	}
	if e.Kafka != nil {
		e.Kafka.Close()
	}
	if e.Admin != nil {
		e.Admin.Close()
	}
	var errs []error
	if e.Stack != nil {
		errs = append(errs, e.Stack.Stop(ctx))
	}
	if e.Toxi != nil {
		errs = append(errs, e.Toxi.Stop())
	}
	return errors.Join(errs...)
}
