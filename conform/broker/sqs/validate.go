package sqs

import (
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Defaults of the consumer section on SQS.
const (
	defaultMaxReceives = 3
	// defaultVisibility is SQS's own default.
	defaultVisibility = 30 * time.Second
)

// nameRE is what an SQS queue's name may hold (besides a FIFO queue's
// .fifo suffix).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

// longestRun is the longest {{run}} conform's startQueue makes: q-, a
// uint64 seed, 8 hex digits, -t and a Unix time.
const longestRun = len("q-18446744073709551615-0a1b2c3d-t99999999999")

// Validate is SQS's rules for the consumer section: at most one endpoint,
// an http(s) URL; the queue (default idemcheck-{{run}}, with .fifo on a
// FIFO queue) and its dead-letter queue (default the queue's name with
// -dlq) each hold {{run}}, only what SQS's names may, and at most 80
// characters; no group and no partitions (SQS has neither); content_dedup
// only on a FIFO queue; max_receives 1 to 1000 (default 3);
// visibility_timeout whole seconds from 1s to 12h (default 30s); the
// command's variables default to SQS_ENDPOINT, SQS_QUEUE_URL and
// SQS_DLQ_URL.
func Validate(s *broker.Spec, bad func(field, format string, args ...any)) {
	defaultTo(&s.Env.Addrs, "SQS_ENDPOINT")
	defaultTo(&s.Env.Queue, "SQS_QUEUE_URL")
	defaultTo(&s.Env.DeadLetter, "SQS_DLQ_URL")
	if s.Env.Group != "" {
		bad("consumer.env.group", "SQS has no consumer groups: the consumers share the queue")
	}
	if len(s.Addrs) > 1 {
		bad("consumer.brokers", "SQS takes one endpoint, got %d", len(s.Addrs))
	}
	for i, a := range s.Addrs {
		if u, err := url.Parse(a); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("consumer.brokers", "brokers[%d] %q is not an SQS endpoint URL (http://host:port or https://sqs.<region>.amazonaws.com)", i, a)
		}
	}
	if s.Group != "" {
		bad("consumer.group", "SQS has no consumer groups: the consumers share the queue")
	}
	if s.Lanes != 0 {
		bad("consumer.partitions", "SQS has no partitions")
	}
	k := &s.Kind
	suffix := ""
	if k.FIFO {
		suffix = ".fifo"
	} else if k.ContentDedup {
		bad("consumer.content_dedup", "needs consumer.fifo: only a FIFO queue deduplicates")
	}
	if s.Queue == "" {
		s.Queue = "idemcheck-{{run}}" + suffix
	}
	given := k.DeadLetter != ""
	if !given {
		k.DeadLetter = strings.TrimSuffix(s.Queue, ".fifo") + "-dlq" + suffix
	}
	// A dead-letter name made from a bad queue name would say its
	// problem twice.
	if checkName(bad, "consumer.topic", s.Queue, suffix) || given {
		checkName(bad, "consumer.dead_letter", k.DeadLetter, suffix)
	}
	switch {
	case k.MaxReceives == 0:
		k.MaxReceives = defaultMaxReceives
	case k.MaxReceives < 1 || k.MaxReceives > 1000:
		bad("consumer.max_receives", "must be between 1 and 1000 (SQS's maxReceiveCount), got %d", k.MaxReceives)
	}
	switch v := k.Visibility; {
	case v == 0:
		k.Visibility = defaultVisibility
	case v < time.Second || v > 12*time.Hour || v%time.Second != 0:
		bad("consumer.visibility_timeout", "must be whole seconds from 1s to 12h (SQS's VisibilityTimeout), got %s", v)
	}
}

// checkName: a queue's name template holds {{run}}, SQS's characters, the
// FIFO suffix exactly when the queue is FIFO, and fits SQS's 80
// characters with the longest run name.
func checkName(bad func(field, format string, args ...any), field, name, suffix string) (ok bool) {
	bare, fifo := strings.CutSuffix(name, ".fifo")
	ok = true
	fail := bad
	bad = func(field, format string, args ...any) { ok = false; fail(field, format, args...) }
	switch {
	case !strings.Contains(name, "{{run}}"):
		bad(field, "must contain {{run}}: each run creates its own queues and deletes them, so a run never reads another's messages")
	case fifo != (suffix != ""):
		if fifo {
			bad(field, "%q ends in .fifo, which SQS keeps for FIFO queues (set consumer.fifo: true)", name)
		} else {
			bad(field, "%q must end in .fifo: SQS names a FIFO queue so", name)
		}
	case !nameRE.MatchString(strings.ReplaceAll(bare, "{{run}}", "")):
		bad(field, "%q may hold only letters, digits, '_' and '-' besides {{run}}", name)
	case len(strings.ReplaceAll(name, "{{run}}", strings.Repeat("x", longestRun))) > 80:
		bad(field, "%q is longer than SQS's 80 characters once {{run}} (up to %d) is filled in", name, longestRun)
	}
	return ok
}

func defaultTo(f *string, v string) {
	if *f == "" {
		*f = v
	}
}
