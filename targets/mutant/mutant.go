// Package mutant is the one catalogue of guard switches in the reference
// stack. A mutant is the same code with one guard switched off by
// configuration, never a copy; SCENARIOS.md names which scenario catches it.
package mutant

import (
	"fmt"
	"sort"
	"strings"
)

// Switch names one guard turned off.
type Switch string

// The switches, one per guard.
const (
	ResolverFreshPSPKey    Switch = "resolver-fresh-psp-key"
	CheckThenInsert        Switch = "check-then-insert"
	TakeoverNewPSPKey      Switch = "takeover-new-psp-key"
	CompleteUnconditional  Switch = "complete-unconditional"
	FingerprintRawBytes    Switch = "fingerprint-raw-bytes"
	NoFingerprintCheck     Switch = "no-fingerprint-check"
	KeyNotScoped           Switch = "key-not-scoped"
	ClientTrustsError      Switch = "client-trusts-error"
	NoDeadline             Switch = "no-deadline"
	ResolveReadOnly        Switch = "resolve-read-only"
	NonAtomicResolve       Switch = "non-atomic-resolve"
	NoDurableGuard         Switch = "no-durable-guard-random-id"
	ReadPathTrustsPresence Switch = "read-path-trusts-presence"
	FreshRefundKey         Switch = "fresh-refund-key"
	BlindWebhookUpdate     Switch = "blind-webhook-update"
	NearestRegion          Switch = "route-nearest-region"
	RegionAttemptKey       Switch = "region-attempt-key"
	RandomEventID          Switch = "random-event-id"
)

// Entry documents one switch: the guard it removes, the scenarios whose
// caught spec runs with it, the tier that reads it.
type Entry struct {
	Switch    Switch
	Tier      string
	Guard     string
	Scenarios []string
	CaughtAs  string
}

// Catalogue is every switch.
var Catalogue = []Entry{
	{ResolverFreshPSPKey, "resolver", "the resolver replays the derived PSP key <payment_id>:charge", []string{"A1"}, "double-charge"},
	{CheckThenInsert, "api", "the claim is one conditional write in the key store and the PENDING insert is conditional on UNIQUE (caller_id, client_key)", []string{"A2"}, "two claims and two PSP calls (API counters); the derived PSP key and the ledger's compare-and-set keep the history clean"},
	{TakeoverNewPSPKey, "api", "a takeover reads the durable row and calls the PSP with the derived key", []string{"A3"}, "double-charge"},
	{CompleteUnconditional, "api", "completion of the key record only if owner = me", []string{"A4"}, "the zombie overwrites the key record (seen in the record); answers are rendered from the ledger row, so the history stays clean"},
	{FingerprintRawBytes, "api", "the fingerprint hashes the meaning fields in a fixed order, not the raw body", []string{"A5"}, "false-mismatch"},
	{NoFingerprintCheck, "api", "a repeat with another fingerprint gets 422", []string{"A5"}, "mismatch-accepted"},
	{KeyNotScoped, "api", "the scope is endpoint:caller:key", []string{"A6"}, "inconsistent-answer"},
	{ClientTrustsError, "phone", "the phone reads the payment before believing an error on a retry", []string{"A7"}, "inconsistent-answer"},
	{NoDeadline, "api", "a request whose arrival stamp is older than the deadline runs nothing", []string{"B1", "B2"}, "effect-after-void"},
	{ResolveReadOnly, "api", "RESOLVE of an absent key inserts VOID in both stores", []string{"B1", "B2"}, "effect-after-void"},
	{NonAtomicResolve, "api", "RESOLVE's VOID goes in with insert-if-absent under UNIQUE (caller_id, client_key)", []string{"B3"}, "effect-after-void"},
	{NoDurableGuard, "api", "the PENDING row under UNIQUE (caller_id, client_key) with a derived payment id", []string{"B4"}, "double-charge"},
	{ReadPathTrustsPresence, "api", "a key record with expires_at < now is read as absent", []string{"B5"}, "inconsistent-answer"},
	{FreshRefundKey, "resolver", "refund retries carry the derived key <payment_id>:cancel:refund", []string{"B6"}, "two refunds in the PSP's log (no checker kind names it)"},
	{BlindWebhookUpdate, "webhook", "the webhook inbox and compare-and-set moves with the derived event id", []string{"C1"}, "double-credit"},
	{NearestRegion, "router", "every request of a caller goes to the caller's home Region, not the nearest one", []string{"G1"}, "double-credit"},
	{RegionAttemptKey, "resolver", "a Region resuming another's payment replays the derived PSP key <payment_id>:charge, not <payment_id>:<region>:1", []string{"G2"}, "double-charge"},
	{RandomEventID, "api,resolver", "the outbox event id is derived, <payment_id>:SUCCEEDED, so another Region re-creates it", []string{"G2"}, "double-credit"},
}

// Set is the switches a process runs with.
type Set map[Switch]bool

// On reports whether s is switched on (its guard off).
func (m Set) On(s Switch) bool { return m[s] }

// Parse reads a comma-separated list of switch names; unknown names are an
// error naming the known ones.
func Parse(list string) (Set, error) {
	m := Set{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if Lookup(Switch(n)) == nil {
			return nil, fmt.Errorf("mutant: unknown switch %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		m[Switch(n)] = true
	}
	return m, nil
}

// String is the comma-separated form Parse reads.
func (m Set) String() string {
	var out []string
	for s, on := range m {
		if on {
			out = append(out, string(s))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// Lookup returns the catalogue entry of s, or nil.
func Lookup(s Switch) *Entry {
	for i := range Catalogue {
		if Catalogue[i].Switch == s {
			return &Catalogue[i]
		}
	}
	return nil
}

// Names lists every switch name.
func Names() []string {
	out := make([]string, len(Catalogue))
	for i, e := range Catalogue {
		out[i] = string(e.Switch)
	}
	return out
}

// Of returns the switches in set a the named tier reads.
func Of(tier string, a Set) Set {
	m := Set{}
	for s := range a {
		if e := Lookup(s); e != nil && e.Tier == tier {
			m[s] = true
		}
	}
	return m
}
