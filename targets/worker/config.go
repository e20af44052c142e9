package worker

import (
	"fmt"
	"log"
	"sort"
	"strings"
	"time"
)

// Guards are the worker's switches; the reference has all of them on, and
// each mutant turns some off (never a copy of the code).
type Guards struct {
	// Inbox: processed(event_id) ON CONFLICT DO NOTHING in the credit's
	// transaction.
	Inbox bool
	// ReadCommitted: the consumer's isolation level.
	ReadCommitted bool
	// NotifRecord: the notif(event_id, channel) intent row; without it the
	// worker pushes on every delivery.
	NotifRecord bool
	// ReplaceID: pushes carry replace id = payment id.
	ReplaceID bool
	// FinishOnRedelivery: a repeat (inbox hit) still finishes a PENDING
	// notification instead of only acknowledging.
	FinishOnRedelivery bool
	// DedupKey: logical messages pass the Valkey window.
	DedupKey bool
}

// Reference is every guard on.
func Reference() Guards {
	return Guards{Inbox: true, ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true}
}

// Mutants maps each mutant name of SCENARIOS.md to the guards it turns off.
var Mutants = map[string]func(*Guards){
	"worker-no-inbox":                   func(g *Guards) { g.Inbox = false },                           // D1
	"consumer-relies-on-producer-dedup": func(g *Guards) { g.Inbox = false },                           // D2
	"read-uncommitted-no-inbox":         func(g *Guards) { g.Inbox, g.ReadCommitted = false, false },   // D3
	"no-inbox":                          func(g *Guards) { g.Inbox = false },                           // D4
	"no-notif-record-no-replace-id":     func(g *Guards) { g.NotifRecord, g.ReplaceID = false, false }, // E1 (a)
	"replace-id-no-record":              func(g *Guards) { g.NotifRecord = false },                     // E1 (b)
	"ack-only-on-redelivery":            func(g *Guards) { g.FinishOnRedelivery = false },              // E2
	"no-dedup-key":                      func(g *Guards) { g.DedupKey = false },                        // E3
}

// MutantNames lists the mutants, sorted.
func MutantNames() []string {
	out := make([]string, 0, len(Mutants))
	for n := range Mutants {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// GuardsFor returns the reference guards with mutant applied ("" = none).
func GuardsFor(mutant string) (Guards, error) {
	g := Reference()
	if mutant == "" {
		return g, nil
	}
	f, ok := Mutants[mutant]
	if !ok {
		return g, fmt.Errorf("worker: unknown mutant %q (have %s)", mutant, strings.Join(MutantNames(), ", "))
	}
	f(&g)
	return g, nil
}

// Config configures one worker process.
type Config struct {
	// Name is the worker's identity: its process name in the history, and
	// its static group member id.
	Name     string
	Postgres string
	Brokers  []string
	Topic    string
	Group    string
	PushURL  string
	// Valkey is the logical-dedup cache; empty disables the guard.
	Valkey string
	// DedupWindow and UserCap configure logical dedup (UserCap 0: no cap).
	DedupWindow time.Duration
	UserCap     int
	// SessionTimeout of the consumer group membership.
	SessionTimeout time.Duration
	Guards         Guards
	Log            *log.Logger
}
