package tier

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/targets/failpoint"
	"github.com/idemcheck/idemcheck/targets/mutant"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// Flags is the flag set every tier parses, so a flag the tiers share is
// spelled, explained and checked once. Every tier takes -addr-file (where it
// publishes its URLs) and -failpoints (the points armed at start); a tier
// adds the common flags it needs (Listen, Postgres, PSP, Mutants, ...) and
// its own on the embedded FlagSet, then calls Parse.
type Flags struct {
	*flag.FlagSet
	tier       string
	addrFile   string
	failpoints string
	listen     string
	required   []string
	mutants    *string
	mutantSet  mutant.Set
	brokers    *string
	brokerList []string
}

// NewFlags starts tier's flag set.
func NewFlags(tier string) *Flags {
	f := &Flags{FlagSet: flag.NewFlagSet(tier, flag.ContinueOnError), tier: tier, listen: "127.0.0.1:0"}
	f.SetOutput(io.Discard)
	f.StringVar(&f.addrFile, "addr-file", "", `file to publish the tier's URLs to, as JSON ({"admin": url, ...})`)
	f.StringVar(&f.failpoints, "failpoints", "", "failpoints armed at start: name=action;... (targets/failpoint)")
	return f
}

// Listen adds -listen, the tier's public address (default 127.0.0.1:0).
func (f *Flags) Listen() *string {
	f.StringVar(&f.listen, "listen", f.listen, "listen address")
	return &f.listen
}

// Postgres adds -pg, the Postgres DSN; -postgres is the same flag.
func (f *Flags) Postgres() *string {
	pg := f.String("pg", "", "Postgres DSN")
	f.Alias("postgres", "pg")
	return pg
}

// Valkey adds -valkey, a Valkey host:port.
func (f *Flags) Valkey() *string { return f.String("valkey", "", "Valkey host:port") }

// PSP adds -psp and -psp-key: the PSP's base URL and secret key.
func (f *Flags) PSP() (url, key *string) {
	return f.String("psp", "", "PSP base URL"), f.String("psp-key", "", "PSP secret key")
}

// Mutants adds -mutants, the guard switches turned off (targets/mutant); the
// set is read by Parse, which refuses an unknown switch.
func (f *Flags) Mutants() *mutant.Set {
	f.mutants = f.String("mutants", "", "comma-separated mutant switches: "+strings.Join(mutant.Names(), ", "))
	return &f.mutantSet
}

// Brokers adds -brokers, Kafka's bootstrap host:port list, comma separated;
// Parse splits it.
func (f *Flags) Brokers() *[]string {
	f.brokers = f.String("brokers", "", "Kafka bootstrap host:port list, comma separated")
	return &f.brokerList
}

// Alias makes -alias another spelling of the flag -name.
func (f *Flags) Alias(alias, name string) {
	fl := f.Lookup(name)
	f.Var(fl.Value, alias, "same as -"+name)
}

// Require makes Parse refuse a run where any of the named flags is empty.
func (f *Flags) Require(names ...string) { f.required = append(f.required, names...) }

// Parse parses args, checks the required flags, reads the mutant set and
// the broker list, and arms the -failpoints list: the one start-up arming
// path of every tier. Its errors are bad input: Dispatch exits 2 on them.
func (f *Flags) Parse(args []string) error {
	if err := f.FlagSet.Parse(args); err != nil {
		return f.Bad(err)
	}
	for _, n := range f.required {
		fl := f.Lookup(n)
		if fl == nil {
			panic("tier " + f.tier + ": Require names no flag -" + n) // a tier's bug, not its input
		}
		if fl.Value.String() == "" {
			return f.Bad(fmt.Errorf("%s required", flagList(f.required)))
		}
	}
	if f.mutants != nil {
		ms, err := mutant.Parse(*f.mutants)
		if err != nil {
			return f.Bad(fmt.Errorf("-mutants: %w", err))
		}
		f.mutantSet = ms
	}
	if f.brokers != nil && *f.brokers != "" {
		f.brokerList = strings.Split(*f.brokers, ",")
	}
	if err := failpoint.ArmList(f.failpoints); err != nil {
		return f.Bad(err)
	}
	return nil
}

// Bad reports err as the tier's bad input (a flag's value it refuses), named
// after the tier; Dispatch exits 2 on it.
func (f *Flags) Bad(err error) error {
	if !strings.HasPrefix(err.Error(), f.tier+": ") {
		err = fmt.Errorf("%s: %w", f.tier, err)
	}
	return BadInput{err}
}

// BadInput is a tier's refusal of its command line: Dispatch exits 2 on it,
// 1 on any other error.
type BadInput struct{ error }

func (b BadInput) Unwrap() error { return b.error }

// flagList spells names as "-a is", "-a and -b are", "-a, -b and -c are".
func flagList(names []string) string {
	ds := make([]string, len(names))
	for i, n := range names {
		ds[i] = "-" + n
	}
	if len(ds) == 1 {
		return ds[0] + " is"
	}
	return strings.Join(ds[:len(ds)-1], ", ") + " and " + ds[len(ds)-1] + " are"
}

// Serve serves the tier's public handler on -listen until ctx ends and
// returns its URL.
func (f *Flags) Serve(ctx context.Context, h http.Handler) (string, error) {
	url, err := Serve(ctx, f.listen, h)
	if err != nil {
		return "", fmt.Errorf("%s: listen %s: %w", f.tier, f.listen, err)
	}
	return url, nil
}

// Publish starts the tier's admin endpoint (failpoints, the clock when not
// nil, extra handlers) and writes addrs with the admin URL as "admin" to
// -addr-file, which tells the harness the tier is serving. It returns the
// admin URL.
func (f *Flags) Publish(ctx context.Context, clock *storytime.Clock, extra map[string]http.Handler, addrs map[string]string) (string, error) {
	admin, err := ServeAdmin(ctx, clock, extra)
	if err != nil {
		return "", fmt.Errorf("%s: admin: %w", f.tier, err)
	}
	all := map[string]string{"admin": admin}
	for k, v := range addrs {
		all[k] = v
	}
	if err := WriteAddrs(f.addrFile, all); err != nil {
		return "", fmt.Errorf("%s: addr file: %w", f.tier, err)
	}
	return admin, nil
}
