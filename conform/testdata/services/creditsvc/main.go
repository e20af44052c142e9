// Command creditsvc is a purpose-built Kafka consumer for idemcheck's queue
// checks: it credits a merchant for each payment record of $KAFKA_TOPIC
// (group $KAFKA_GROUP) into a ledger file in $STATE_DIR, commits offsets
// by hand a moment after the credit, and serves GET /credits?payment_id=.
// Each --flaw switches one guard off; none is correct. A batch's credit
// takes --work to make (a call to another service) before it is durable:
// the window a kill or a shutdown mid-batch lands in.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

var flaws = map[string]string{
	"none":                 "dedups by event id in the ledger file, credits then commits, skips (and logs) a malformed record",
	"commit-before-credit": "commits a batch's offsets, then credits it a moment later",
	"no-dedup":             "credits every record it is delivered",
	"memory-dedup":         "keeps the event ids it credited in memory only (lost on restart and to another instance)",
	"poison-stops":         "stops its partition at a malformed record, silently",
	"mark-before-credit":   "marks each event processed in an inbox of its own as it takes it, then credits it without looking again (a crash between loses the credit)",
	"shutdown-rollback":    "on SIGTERM rolls back the batch it is crediting and still commits its offsets, as an auto commit on close does",
}

type message struct {
	EventID   string `json:"event_id"`
	PaymentID string `json:"payment_id"`
	Amount    int64  `json:"amount"`
	Merchant  string `json:"merchant"`
}

type consumer struct {
	flaw    string
	topic   string
	delay   time.Duration
	work    time.Duration
	ledger  *ledger
	inbox   *ledger // mark-before-credit
	cl      *kgo.Client
	seen    map[string]bool // memory-dedup
	stopped map[int32]bool  // poison-stops
}

func main() {
	flaw := flag.String("flaw", "none", "the guard switched off")
	delay := flag.Duration("commit-delay", 300*time.Millisecond, "how long after its credit a record's offset is committed")
	work := flag.Duration("work", 150*time.Millisecond, "how long a batch's credit takes to make before it is durable")
	session := flag.Duration("session-timeout", 6*time.Second, "the group session timeout (Kafka's minimum by default)")
	flag.Parse()
	if _, ok := flaws[*flaw]; !ok {
		log.Fatalf("unknown --flaw %q", *flaw)
	}
	led := &ledger{path: os.Getenv("STATE_DIR") + "/credits.jsonl"}
	c := &consumer{flaw: *flaw, topic: os.Getenv("KAFKA_TOPIC"), delay: *delay, work: *work, ledger: led,
		inbox: &ledger{path: os.Getenv("STATE_DIR") + "/inbox.jsonl"},
		seen:  map[string]bool{}, stopped: map[int32]bool{}}
	moved := func(what string) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			log.Printf("partitions %s: %v", what, m[c.topic])
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(os.Getenv("KAFKA_BROKERS"), ",")...),
		kgo.ConsumerGroup(os.Getenv("KAFKA_GROUP")), kgo.ConsumeTopics(c.topic),
		// Rebalances wait for the poll loop's commit: a commit of a partition
		// given away meanwhile would rewind its new owner's offset.
		kgo.BlockRebalanceOnPoll(),
		kgo.DisableAutoCommit(), kgo.SessionTimeout(*session), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(moved("assigned")), kgo.OnPartitionsRevoked(moved("revoked")), kgo.OnPartitionsLost(moved("lost")))
	if err != nil {
		log.Fatal(err)
	}
	c.cl = cl
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/credits", led.serve)
	pays := &payments{path: os.Getenv("STATE_DIR") + "/payments.jsonl"}
	mux.HandleFunc("POST /payments", pays.serve)
	mux.HandleFunc("/count", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, `{"count": %d}`+"\n", len(pays.rows())) })
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Printf("creditsvc --flaw %s (%s): consuming %s", *flaw, flaws[*flaw], c.topic)
	c.run(ctx)
	// A graceful stop leaves the group at once.
	cl.Close()
	_ = srv.Close()
}

func (c *consumer) run(ctx context.Context) {
	defer c.cl.AllowRebalance()
	for ctx.Err() == nil {
		fs := c.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		var done []*kgo.Record
		var credits []message
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			for _, r := range p.Records {
				if c.stopped[r.Partition] {
					return
				}
				var m message
				if json.Unmarshal(r.Value, &m) != nil || m.EventID == "" || m.Amount <= 0 {
					if c.flaw == "poison-stops" {
						c.cl.PauseFetchPartitions(map[string][]int32{c.topic: {r.Partition}})
						c.stopped[r.Partition] = true
						return
					}
					log.Printf("skipping malformed record at partition %d offset %d: %.40q", r.Partition, r.Offset, r.Value)
					done = append(done, r)
					continue
				}
				done, credits = append(done, r), append(credits, m)
			}
		})
		c.process(ctx, done, credits)
		c.cl.AllowRebalance()
	}
}

// process credits a batch and commits its offsets. A SIGTERM mid-batch
// (ctx done) finishes the batch and commits at once, then leaves: only
// shutdown-rollback drops the work and commits anyway.
func (c *consumer) process(ctx context.Context, done []*kgo.Record, credits []message) {
	if c.flaw == "commit-before-credit" {
		c.commit(done)
		time.Sleep(c.delay)
		time.Sleep(c.work)
		c.creditAll(credits)
		return
	}
	if c.flaw == "mark-before-credit" {
		var fresh []message
		for _, m := range credits {
			if c.inbox.add(m, true) {
				fresh = append(fresh, m)
			}
		}
		credits = fresh
	}
	select {
	case <-time.After(c.work):
	case <-ctx.Done():
		if c.flaw == "shutdown-rollback" && len(credits) > 0 {
			log.Printf("SIGTERM mid-batch: rolled back %d credit(s), committing the batch's offsets on close", len(credits))
			c.commit(done)
			return
		}
		time.Sleep(c.work) // finish the batch's work
	}
	c.creditAll(credits)
	// The commit trails the credit by --commit-delay (the window a crash
	// redelivers in); a shutdown commits at once.
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
	}
	c.commit(done)
}

func (c *consumer) creditAll(ms []message) {
	for _, m := range ms {
		c.credit(m)
	}
}

// commit has a context of its own: a shutdown commits what it finished.
func (c *consumer) commit(recs []*kgo.Record) {
	if len(recs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.cl.CommitRecords(ctx, recs...); err != nil {
		log.Printf("commit: %v", err)
	}
}

func (c *consumer) credit(m message) {
	switch c.flaw {
	case "no-dedup", "mark-before-credit":
		c.ledger.add(m, false)
	case "memory-dedup":
		if !c.seen[m.EventID] {
			c.seen[m.EventID] = true
			c.ledger.add(m, false)
		}
	default:
		c.ledger.add(m, true)
	}
}

// ledger is the durable credits file, shared by every instance: a lock
// on the file makes check-then-append one step across processes.
type ledger struct {
	path string
	mu   sync.Mutex
}

func (l *ledger) open(how int) (*os.File, func()) {
	l.mu.Lock()
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		log.Fatal(err)
	}
	return f, func() { f.Close(); l.mu.Unlock() }
}

func (l *ledger) rows(f *os.File) []message {
	b, err := os.ReadFile(f.Name())
	if err != nil {
		log.Fatal(err)
	}
	var out []message
	for _, line := range strings.Split(string(b), "\n") {
		var m message
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// add appends m, unless dedup finds its event id there already; it
// reports whether it appended.
func (l *ledger) add(m message, dedup bool) bool {
	f, done := l.open(syscall.LOCK_EX)
	defer done()
	if dedup {
		for _, r := range l.rows(f) {
			if r.EventID == m.EventID {
				log.Printf("already in %s: %s (payment %s): skipped", l.path, m.EventID, m.PaymentID)
				return false
			}
		}
	}
	log.Printf("%s: %s (payment %s, %d)", l.path, m.EventID, m.PaymentID, m.Amount)
	b, _ := json.Marshal(m)
	if _, err := f.Write(append(b, '\n')); err != nil {
		log.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		log.Fatal(err)
	}
	return true
}

func (l *ledger) serve(w http.ResponseWriter, r *http.Request) {
	f, done := l.open(syscall.LOCK_SH)
	rows := l.rows(f)
	done()
	out := []message{}
	for _, m := range rows {
		if m.PaymentID == r.URL.Query().Get("payment_id") {
			out = append(out, m)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": out})
}
