package worker

import (
	"fmt"
	"log"
	"time"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

// Guards are the worker's switches; the reference has all of them on, and
// each switch of targets/mutant with tier "worker" turns one off (never a
// copy of the code).
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

// guardOf is the one guard each worker switch turns off.
var guardOf = map[mutant.Switch]func(*Guards){
	mutant.WorkerNoInbox:       func(g *Guards) { g.Inbox = false },
	mutant.ReadUncommitted:     func(g *Guards) { g.ReadCommitted = false },
	mutant.NoNotifRecord:       func(g *Guards) { g.NotifRecord = false },
	mutant.NoReplaceID:         func(g *Guards) { g.ReplaceID = false },
	mutant.AckOnlyOnRedelivery: func(g *Guards) { g.FinishOnRedelivery = false },
	mutant.NoDedupKey:          func(g *Guards) { g.DedupKey = false },
}

// GuardsOf returns the reference guards with set's switches off. A switch
// of another tier is refused: the caller meant it for a process that reads
// it, and a worker that ignored it would run a mutant as the reference.
func GuardsOf(set mutant.Set) (Guards, error) {
	g := Reference()
	for s, on := range set {
		if !on {
			continue
		}
		off, ok := guardOf[s]
		if !ok {
			e := mutant.Lookup(s)
			tier := "no tier"
			if e != nil {
				tier = "tier " + e.Tier
			}
			return g, fmt.Errorf("worker: switch %q is not the worker's (%s reads it)", s, tier)
		}
		off(&g)
	}
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
