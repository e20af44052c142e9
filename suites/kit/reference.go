package kit

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/idemcheck/idemcheck/internal/logtail"
	"github.com/idemcheck/idemcheck/stack/phone"
	"github.com/idemcheck/idemcheck/stack/refstack"
	"github.com/idemcheck/idemcheck/targets/keystore"
	"github.com/idemcheck/idemcheck/targets/ledger"
	"github.com/idemcheck/idemcheck/targets/mutant"
)

// Phone is the reference's client (the buyer's app), Order what it pays
// for, Mutant a guard of the reference switched off (targets/mutant).
type (
	Phone  = phone.Phone
	Order  = phone.Order
	Reply  = phone.Reply
	Mutant = mutant.Switch
)

// StoryOrder is the story's order: order 42, 3000 USD, pm_1.
func StoryOrder() Order { return phone.Story() }

// RefOptions shape a reference world.
type RefOptions struct {
	// Mutants switch guards off, every tier's and the phone's.
	Mutants []Mutant
	// Toxi puts Toxiproxy links in front of the LB and each API server
	// (Need.Toxiproxy).
	Toxi       bool
	NoResolver bool
	// ResolverRate and ResolverBurst cap the resolver's PSP replays.
	ResolverRate  float64
	ResolverBurst int
}

// Reference is a spec's reference stack (LB, two API servers, resolver,
// webhook, each its own process) on the suite's Postgres and Valkey, with its
// own schema and key prefix, its own PSP, and the ledger's credits in its
// history.
type Reference struct {
	*Record
	Stack   *refstack.Stack
	Ledger  *ledger.Ledger
	Keys    *keystore.Store
	Mutants mutant.Set
}

// NewReference starts a reference world (Need: Postgres and Valkey).
func (e *Env) NewReference(ctx context.Context, o RefOptions) *Reference {
	ginkgo.GinkgoHelper()
	r := &Reference{Record: NewRecord(), Mutants: mutant.Set{}}
	for _, m := range o.Mutants {
		r.Mutants[m] = true
	}
	cfg := refstack.Config{
		PostgresDSN: e.Postgres, ValkeyAddr: e.ValkeyAddr,
		PSPURL: r.PSP.URL(), PSPKey: r.PSP.SecretKey(), WebhookSecret: r.PSP.WebhookSecret(),
		Mutants: r.Mutants, NoResolver: o.NoResolver, ResolverRate: o.ResolverRate, ResolverBurst: o.ResolverBurst,
		Name: fmt.Sprintf("w%d_%d", ginkgo.GinkgoParallelProcess(), worldSeq.Add(1)),
	}
	if o.Toxi {
		gomega.Expect(e.Toxi).NotTo(gomega.BeNil(), "RefOptions.Toxi needs Need.Toxiproxy")
		cfg.Toxi = e.Toxi
	}
	var err error
	r.Stack, err = refstack.Start(ctx, cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func() {
		if ginkgo.CurrentSpecReport().Failed() {
			fmt.Fprintf(ginkgo.GinkgoWriter, "stack logs in %s (set IDEMCHECK_KEEP_LOGS=1 to keep them), tails:\n", r.Stack.LogDir())
			for _, t := range r.Stack.Tiers() {
				fmt.Fprintf(ginkgo.GinkgoWriter, "--- %s\n%s\n", t.Name, logtail.Lines(t.Proc.LogPath(), 40))
			}
		}
		r.Stack.Stop()
	})
	r.Ledger = r.Stack.Ledger
	r.Keys = &keystore.Store{C: e.Valkey, Prefix: r.Stack.Prefix}
	r.AddEffects(LedgerCredits(r.Ledger))
	return r
}

// Phone is a buyer's app talking to the stack's LB, recording into the
// world's history (and trusting an error on a retry under the mutant
// client-trusts-error).
func (r *Reference) Phone(name, caller string) *Phone {
	return &phone.Phone{Name: name, Caller: caller, Base: r.Stack.URL, Rec: r.Rec, TrustsError: r.Mutants.On(mutant.ClientTrustsError)}
}
