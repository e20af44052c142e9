// Package broker is the seam between the queue checks (Q-*, chaos's
// consumer stream) and the message broker a service consumes from. The
// checks produce records, read what the broker says the consumer
// acknowledged, and read the consumers the broker sees; they never take
// the consumer's own word. Each broker is one folder under conform/broker
// that registers itself (kafka/); conform/config/brokers.go imports each.
package broker

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Broker is one run's queue on one broker: opened (the queue made, a
// stale run's leftovers swept) before the service starts, closed (the
// queue and its consumer group deleted, what was started stopped) after
// the service's processes are stopped.
type Broker interface {
	// Caps is what this broker does that some check needs.
	Caps() Caps
	// Where is what a started consumer is told (see Endpoint).
	Where() Endpoint
	// Describe says, for the run's log, which broker and queue the run uses.
	Describe() string
	// Place says where a record is, in the broker's words, as the
	// findings and the log quote it (Kafka: "partition 2 offset 7", short
	// "2/7"; a broker without lanes might say "message id ...").
	Place(p Pos) Place
	// Produce sends each record and waits for the broker's own
	// acknowledgement of it; it sets each record's At.
	Produce(ctx context.Context, recs []*Record) error
	// Acked reads, from the broker, what the run's consumers have
	// acknowledged (Kafka: the group's committed offsets).
	Acked(ctx context.Context) (Acked, error)
	// Group reads the consumers the broker sees on the queue.
	Group(ctx context.Context) (Group, error)
	// Ready reads the broker's own signal that the run's consumers are
	// reading the queue in their steady state, so a check's fault hits
	// what it is meant to (Kafka: the group is Stable, its rebalance done
	// and the assignment in force, with one member per consumer process;
	// a broker without groups may say a receive was seen). consumers is
	// how many processes consume (0: idemcheck does not own them, so at
	// least one). It fills Unmet and Saw even when it returns an error.
	Ready(ctx context.Context, consumers int) (Readiness, error)
	// Close deletes the run's queue and group and stops what Open started.
	Close()
}

// Endpoint is where a consumer finds the run's queue. A started command
// gets each in its environment under the consumer.env names: Addrs
// (comma-joined) in consumer.env.brokers, Queue in consumer.env.topic,
// Group in consumer.env.group. A broker with more names (a dead-letter
// queue) adds its own consumer.env field beside these.
type Endpoint struct {
	// Addrs are the broker's addresses (Kafka's bootstrap servers; an SQS
	// endpoint URL; an AMQP URL).
	Addrs []string
	// Queue is the run's queue (Kafka's topic; an SQS queue; a RabbitMQ queue).
	Queue string
	// Group is the consumers' shared name where the broker has one (a
	// Kafka consumer group); "" where it has none.
	Group string
	// DeadLetter is the run's dead-letter queue, on a broker with
	// DeadLetter (an SQS queue URL); given in consumer.env.dead_letter.
	DeadLetter string
}

// Record is one record a check produces.
type Record struct {
	Key, Value []byte
	// Lane is the partition the record goes to, on a broker with
	// Partitions (idemcheck picks it from the key, so a retried copy
	// lands where its first copy did); 0 elsewhere.
	Lane int32
	// DedupID is the broker's own deduplication id (SQS FIFO's
	// MessageDeduplicationId), set only on a broker with DedupWindow; a
	// producer's retry carries its first copy's.
	DedupID string
	// At is where the broker stored the record, set by Produce.
	At Pos
}

// Pos is where a broker stored a record: its lane and its position in
// the lane (Kafka's partition and offset; Offset -1 until produced), and
// on a broker that names records rather than numbering them, its id (an
// SQS message id).
type Pos struct {
	Lane   int32
	Offset int64
	ID     string
}

// Place is a record's place in a broker's words: Long in a finding's
// evidence and the log ("partition 2 offset 7"), Short after the record's
// event id in a list ("evt_1@2/7").
type Place struct {
	Long, Short string
}

// Acked is the broker's record, at one moment, of what the consumers
// acknowledged (committed, deleted, acked).
type Acked interface {
	// Passed says whether the consumers acknowledged the record at p.
	Passed(p Pos) bool
	// String is the evidence as a finding quotes it ("p0=3 p1=5", "nothing").
	String() string
}

// Offsets is Acked on a broker with Partitions: per lane, the next offset
// the group will read (the group committed past every offset below it).
type Offsets map[int32]int64

func (o Offsets) Passed(p Pos) bool {
	c, ok := o[p.Lane]
	return ok && c > p.Offset
}

func (o Offsets) String() string {
	if len(o) == 0 {
		return "nothing"
	}
	var ps []int
	for p := range o {
		ps = append(ps, int(p))
	}
	sort.Ints(ps)
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("p%d=%d", p, o[int32(p)]))
	}
	return strings.Join(out, " ")
}

// Group is the consumers the broker sees on the run's queue.
type Group struct {
	// State is the broker's own word for the group ("Stable" on Kafka);
	// Stable says the group is not rebalancing.
	State  string
	Stable bool
	// Members are sorted by ID.
	Members []Member
	// Err is the broker's error for this group, read with it.
	Err error
}

// Readiness is one reading of a broker's readiness signal, with the
// words a finding quotes when it never came.
type Readiness struct {
	Ready bool
	// Unmet is what was waited for, said as not reached ("group g was not
	// Stable with 2 member(s)"); Saw is what the broker showed instead
	// ("state \"PreparingRebalance\", 1 member(s)").
	Unmet, Saw string
}

// Member is one consumer the broker sees, and the lanes it holds.
type Member struct {
	ID    string
	Lanes []int32
}

// IDs are the members' ids, sorted.
func (g Group) IDs() []string {
	var out []string
	for _, m := range g.Members {
		out = append(out, m.ID)
	}
	return out
}

// Setup is what a broker is opened with, from the config's consumer
// section.
type Setup struct {
	// Addrs are consumer.brokers; none: the broker starts one for the run.
	Addrs []string
	// Run names this run ({{run}} in QueueName and GroupName); the
	// templates let Open sweep what a SIGKILLed earlier run left.
	Run                  string
	QueueName, GroupName string
	// Lanes is consumer.partitions, on a broker with Partitions.
	Lanes int
	// Queue is what the broker's own queue fields say (Spec.Queue's
	// kind, defaulted by its Validator).
	Kind QueueKind
	Log  io.Writer
}

// QueueKind is how a broker without lanes makes the run's queue, from the
// consumer section: each field is one some broker has, zero elsewhere (a
// broker's Validator refuses one it has no use for).
type QueueKind struct {
	// FIFO is consumer.fifo: an ordered queue with a deduplication window
	// (SQS FIFO); ContentDedup is consumer.content_dedup, the broker
	// deriving a record's dedup id from its body when none is given.
	FIFO, ContentDedup bool
	// DeadLetter is consumer.dead_letter, the dead-letter queue's name
	// template; MaxReceives is consumer.max_receives, how many times a
	// record is delivered before the broker moves it there.
	DeadLetter  string
	MaxReceives int
	// Visibility is consumer.visibility_timeout: how long a received
	// record stays hidden before the broker delivers it again.
	Visibility time.Duration
}

// Opener opens a run's queue on one broker.
type Opener func(ctx context.Context, s Setup) (Broker, error)

// Spec is the config's consumer section as a broker checks it, before
// any run: its names are templates holding {{run}}.
type Spec struct {
	// Addrs are consumer.brokers; Queue and Group consumer.topic and
	// consumer.group; Lanes consumer.partitions.
	Addrs        []string
	Queue, Group string
	Lanes        int
	// Kind is the queue's own fields (QueueKind), as the config gives them.
	Kind QueueKind
	// Env names the variables a started command gets Where's values in
	// (consumer.env.brokers, .topic, .group); the broker defaults them.
	Env EnvNames
}

// EnvNames are the variables a started command finds the broker in;
// DeadLetter is consumer.env.dead_letter, on a broker with DeadLetter.
type EnvNames struct {
	Addrs, Queue, Group, DeadLetter string
}

// Validator checks s against the broker's own rules (an address's form,
// what a queue's name may hold) and fills what it defaults. bad reports
// one problem on a field named as the config spells it
// ("consumer.brokers"); the config adds the file and line.
type Validator func(s *Spec, bad func(field, format string, args ...any))

var registry = map[string]struct {
	open  Opener
	caps  Caps
	check Validator
}{}

// Register adds a broker under its consumer.broker name, with its
// capabilities (known before any is opened: a check's n/a is decided
// from them) and the rules of its config fields.
func Register(name string, caps Caps, open Opener, check Validator) {
	if _, dup := registry[name]; dup {
		panic("broker " + name + " registered twice")
	}
	registry[name] = struct {
		open  Opener
		caps  Caps
		check Validator
	}{open, caps, check}
}

// Validate checks s by the named broker's rules, filling its defaults;
// false: no broker by that name (s untouched).
func Validate(name string, s *Spec, bad func(field, format string, args ...any)) bool {
	r, ok := registry[name]
	if ok && r.check != nil {
		r.check(s, bad)
	}
	return ok
}

// Names are the registered brokers, sorted: the values consumer.broker takes.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CapsOf is the registered broker's capabilities (ok false: none by that name).
func CapsOf(name string) (Caps, bool) {
	r, ok := registry[name]
	return r.caps, ok
}

// Open opens the run's queue on the named broker.
func Open(ctx context.Context, name string, s Setup) (Broker, error) {
	r, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("no broker %q (supported: %s)", name, strings.Join(Names(), ", "))
	}
	b, err := r.open(ctx, s)
	if err != nil {
		return nil, err
	}
	if _, ok := b.(Deduper); r.caps&DedupWindow != 0 && !ok {
		b.Close()
		return nil, fmt.Errorf("broker %s declares a dedup window but does not say how long (broker.Deduper)", name)
	}
	return b, nil
}

// ProduceError is a record the broker did not take: recs[I] of a Produce.
type ProduceError struct {
	I   int
	Err error
}

func (e *ProduceError) Error() string { return fmt.Sprintf("record %d: %v", e.I, e.Err) }
func (e *ProduceError) Unwrap() error { return e.Err }
