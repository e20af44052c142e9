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
	ResolverReplayOnly     Switch = "resolver-replay-only"
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
	OrderByArrival         Switch = "order-by-arrival"
	OrderByPhoneClock      Switch = "order-by-phone-clock"
	ConditionOnFolderItem  Switch = "condition-on-folder-item"
	StreamNoFullFlush      Switch = "stream-no-full-flush"
	StreamTagLastCompleted Switch = "stream-tag-last-completed"
	StreamSeenExternal     Switch = "stream-seen-ids-external"
	StreamNoWatermarkFloor Switch = "stream-no-watermark-floor"
	NearestRegion          Switch = "route-nearest-region"
	RegionAttemptKey       Switch = "region-attempt-key"
	RandomEventID          Switch = "random-event-id"
	RelayDeleteFirst       Switch = "relay-delete-before-publish"
	WorkerNoInbox          Switch = "worker-no-inbox"
	ReadUncommitted        Switch = "read-uncommitted"
	NoNotifRecord          Switch = "no-notif-record"
	NoReplaceID            Switch = "no-replace-id"
	AckOnlyOnRedelivery    Switch = "ack-only-on-redelivery"
	NoDedupKey             Switch = "no-dedup-key"
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
	{ResolverReplayOnly, "resolver", "when the replay of the derived key leaves the outcome unknown (Stripe replays a saved 500), the resolver finds the charge at the PSP by the payment id in its metadata", []string{"A1"}, "failed-but-charged"},
	{CheckThenInsert, "api", "the claim is one conditional write in the key store and the PENDING insert is conditional on UNIQUE (caller_id, client_key)", []string{"A2"}, "masked in the history (the derived PSP key and the ledger's compare-and-set keep one charge and one payment); caught by the fake PSP's own log: two calls under one key for one intent"},
	{TakeoverNewPSPKey, "api", "a takeover reads the durable row and calls the PSP with the derived key", []string{"A3"}, "double-charge"},
	{CompleteUnconditional, "api", "completion of the key record only if owner = me", []string{"A4"}, "masked: answers are rendered from the ledger row, so the zombie's overwrite of the key record carries the same answer and the history passes; the guard that holds is the PENDING row under UNIQUE (caller_id, client_key) the takeover settled; the spec sees the overwrite in the record"},
	{FingerprintRawBytes, "api", "the fingerprint hashes the meaning fields in a fixed order, not the raw body", []string{"A5"}, "false-mismatch"},
	{NoFingerprintCheck, "api", "a repeat with another fingerprint gets 422", []string{"A5"}, "mismatch-accepted"},
	{KeyNotScoped, "api", "the scope is endpoint:caller:key", []string{"A6"}, "inconsistent-answer"},
	{ClientTrustsError, "phone", "the phone reads the payment before believing an error on a retry", []string{"A7"}, "inconsistent-answer"},
	{NoDeadline, "api", "a request whose arrival stamp is older than the deadline runs nothing", []string{"B1", "B2"}, "effect-after-void"},
	{ResolveReadOnly, "api", "RESOLVE of an absent key inserts VOID in both stores", []string{"B1", "B2"}, "effect-after-void"},
	{NonAtomicResolve, "api", "RESOLVE's VOID goes in with insert-if-absent under UNIQUE (caller_id, client_key)", []string{"B3"}, "effect-after-void"},
	{NoDurableGuard, "api", "the PENDING row under UNIQUE (caller_id, client_key) with a derived payment id", []string{"B4"}, "double-charge"},
	{ReadPathTrustsPresence, "api", "a key record with expires_at < now is read as absent", []string{"B5"}, "inconsistent-answer"},
	{FreshRefundKey, "resolver", "refund retries carry the derived key <payment_id>:cancel:refund", []string{"B6"}, "double-refund (one refund request carried out twice under two keys)"},
	{BlindWebhookUpdate, "webhook", "the webhook inbox and compare-and-set moves with the derived event id", []string{"C1"}, "double-credit"},
	{OrderByArrival, "reactions", "a write applies only if its device counter is above the per-device high-water mark (a row that never expires)", []string{"C2"}, "stale-write-applied"},
	{OrderByPhoneClock, "reactions", "writes are ordered by the device's counter, never by the phone's clock", []string{"C2"}, "stale-write-applied"},
	{ConditionOnFolderItem, "mailbox", "the parser's put-if-absent is conditioned on the locator M#<id>, which never moves and is a tombstone after delete", []string{"C3"}, "effect-resurrected"},
	{StreamNoFullFlush, "streamjob", "a restore rewrites every restored key with tag c and deletes keys tagged >= c that restored state lacks", []string{"F1"}, "sink-divergence"},
	{StreamTagLastCompleted, "streamjob", "sink writes carry the last checkpoint barrier passed, not the last completion heard", []string{"F2"}, "sink-divergence"},
	{StreamSeenExternal, "streamjob", "the seen event ids live in checkpointed state, not in an external cache (Valkey)", []string{"F3"}, "sink-divergence"},
	{StreamNoWatermarkFloor, "streamjob", "the late bound is max(saved watermark floor, live watermark)", []string{"F4"}, "sink-divergence"},
	{NearestRegion, "router", "every request of a caller goes to the caller's home Region, not the nearest one", []string{"G1"}, "double-credit"},
	{RegionAttemptKey, "resolver", "a Region resuming another's payment replays the derived PSP key <payment_id>:charge, not <payment_id>:<region>:1", []string{"G2"}, "double-charge"},
	{RandomEventID, "api,resolver", "the outbox event id is derived, <payment_id>:SUCCEEDED, so another Region re-creates it", []string{"G2"}, "double-credit"},
	{RelayDeleteFirst, "relay", "the relay deletes the outbox rows only after the broker acknowledged them, so a crash between the two steps repeats an event and never loses one", []string{"D1"}, "lost-effect"},
	{WorkerNoInbox, "worker", "processed(event_id) ON CONFLICT DO NOTHING in the credit's transaction, so a redelivered event credits nothing", []string{"D1", "D2", "D3", "D4", "H1"}, "double-credit"},
	{ReadUncommitted, "worker", "the consumer reads with isolation read_committed, so it never sees an aborted producer transaction's copy", []string{"D3"},
		"masked by the inbox, which drops the committed copy of an event the aborted one credited; caught with worker-no-inbox (D3's caught spec) as double-credit"},
	{NoNotifRecord, "worker", "the notif(event_id, channel) intent row: a redelivery finds the notification sent and pushes nothing", []string{"E1"}, "notification-stacked"},
	{NoReplaceID, "worker", "every push carries replace id = payment id, so a repeat replaces the alert on the phone instead of stacking", []string{"E1"},
		"masked by the notification record, which sends no repeat to replace; caught with no-notif-record (E1's caught spec (a)) as notification-stacked"},
	{AckOnlyOnRedelivery, "worker", "a redelivery the inbox drops still finishes a PENDING notification instead of only acknowledging", []string{"E2"}, "lost-effect"},
	{NoDedupKey, "worker", "logical messages pass the Valkey dedup window, one per recipient and key", []string{"E3"}, "notification-stacked"},
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

// Sorted lists the switches that are on, by name.
func (m Set) Sorted() []Switch {
	var out []Switch
	for s, on := range m {
		if on {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// String is the comma-separated form Parse reads.
func (m Set) String() string {
	var out []string
	for _, s := range m.Sorted() {
		out = append(out, string(s))
	}
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
func Of(tier string, a Set) Set { return pick(a, func(e *Entry) bool { return e.Tier == tier }) }

// Without returns the switches in set a every other tier reads.
func Without(tier string, a Set) Set { return pick(a, func(e *Entry) bool { return e.Tier != tier }) }

func pick(a Set, keep func(*Entry) bool) Set {
	m := Set{}
	for s := range a {
		if e := Lookup(s); e != nil && keep(e) {
			m[s] = true
		}
	}
	return m
}
