// Command creditsvc is a purpose-built Kafka consumer for idemcheck's queue
// checks: it credits a merchant for each payment record of $KAFKA_TOPIC
// (group $KAFKA_GROUP) into a ledger file in $STATE_DIR, commits offsets
// by hand a moment after the credit, and serves GET /credits?payment_id=.
// Each --flaw switches one guard off; none is correct.
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
	ledger  *ledger
	cl      *kgo.Client
	seen    map[string]bool // memory-dedup
	stopped map[int32]bool  // poison-stops
}

func main() {
	flaw := flag.String("flaw", "none", "the guard switched off")
	delay := flag.Duration("commit-delay", 300*time.Millisecond, "how long after its credit a record's offset is committed")
	session := flag.Duration("session-timeout", 6*time.Second, "the group session timeout (Kafka's minimum by default)")
	flag.Parse()
	if _, ok := flaws[*flaw]; !ok {
		log.Fatalf("unknown --flaw %q", *flaw)
	}
	led := &ledger{path: os.Getenv("STATE_DIR") + "/credits.jsonl"}
	c := &consumer{flaw: *flaw, topic: os.Getenv("KAFKA_TOPIC"), delay: *delay, ledger: led,
		seen: map[string]bool{}, stopped: map[int32]bool{}}
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
		// The commit trails the credit by --commit-delay (the window a crash
		// redelivers in), or, with commit-before-credit, leads it.
		if c.flaw == "commit-before-credit" {
			c.commit(ctx, done)
			time.Sleep(c.delay)
			c.creditAll(credits)
		} else {
			c.creditAll(credits)
			time.Sleep(c.delay)
			c.commit(ctx, done)
		}
		c.cl.AllowRebalance()
	}
}

func (c *consumer) creditAll(ms []message) {
	for _, m := range ms {
		c.credit(m)
	}
}

func (c *consumer) commit(ctx context.Context, recs []*kgo.Record) {
	if len(recs) == 0 {
		return
	}
	if err := c.cl.CommitRecords(ctx, recs...); err != nil {
		log.Printf("commit: %v", err)
	}
}

func (c *consumer) credit(m message) {
	switch c.flaw {
	case "no-dedup":
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

func (l *ledger) add(m message, dedup bool) {
	f, done := l.open(syscall.LOCK_EX)
	defer done()
	if dedup {
		for _, r := range l.rows(f) {
			if r.EventID == m.EventID {
				log.Printf("already credited %s (payment %s): skipped", m.EventID, m.PaymentID)
				return
			}
		}
	}
	log.Printf("credit %s (payment %s, %d)", m.EventID, m.PaymentID, m.Amount)
	b, _ := json.Marshal(m)
	if _, err := f.Write(append(b, '\n')); err != nil {
		log.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		log.Fatal(err)
	}
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
