package rabbitmq

import (
	"strings"
	"unicode/utf8"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// longestRun is the longest {{run}} conform's startQueue makes: q-, a
// uint64 seed, 8 hex digits, -t and a Unix time.
const longestRun = len("q-18446744073709551615-0a1b2c3d-t99999999999")

// Validate is RabbitMQ's rules for the consumer section: consumer.brokers
// is an amqp:// or amqps:// URL and, optionally, the management API's
// http(s) URL after it (default: the AMQP host, port 15672, the same
// user); the queue (default idemcheck-{{run}}) and the dead-letter queue
// (consumer.dead_letter, default the queue's name with -dlq) each hold
// {{run}}, do not start with "amq." (RabbitMQ keeps those) and fit its
// 255 bytes; no group, partitions, FIFO, content dedup, max_receives or
// visibility timeout (RabbitMQ's queue has none of them); the command's
// variables default to AMQP_URL, AMQP_QUEUE and AMQP_DLQ.
func Validate(s *broker.Spec, bad func(field, format string, args ...any)) {
	defaultTo(&s.Env.Addrs, "AMQP_URL")
	defaultTo(&s.Env.Queue, "AMQP_QUEUE")
	defaultTo(&s.Env.DeadLetter, "AMQP_DLQ")
	if s.Env.Group != "" {
		bad("consumer.env.group", "RabbitMQ has no consumer groups: the consumers share the queue")
	}
	if len(s.Addrs) > 2 {
		bad("consumer.brokers", "RabbitMQ takes an AMQP URL and, optionally, its management API's URL; got %d addresses", len(s.Addrs))
	}
	if len(s.Addrs) > 0 {
		if _, err := amqp.ParseURI(s.Addrs[0]); err != nil {
			bad("consumer.brokers", "brokers[0] %q is not an AMQP URL (amqp://user:password@host:5672/vhost)", redact(s.Addrs[0]))
		}
	}
	if len(s.Addrs) > 1 {
		if _, err := newMgmt(s.Addrs[1], ""); err != nil {
			bad("consumer.brokers", "brokers[1] %q is not the management API's URL (http://user:password@host:15672)", redact(s.Addrs[1]))
		}
	}
	if s.Group != "" {
		bad("consumer.group", "RabbitMQ has no consumer groups: the consumers share the queue")
	}
	if s.Lanes != 0 {
		bad("consumer.partitions", "RabbitMQ's queue has no partitions")
	}
	k := &s.Kind
	for _, f := range []struct {
		field string
		set   bool
	}{{"consumer.fifo", k.FIFO}, {"consumer.content_dedup", k.ContentDedup}, {"consumer.max_receives", k.MaxReceives != 0}, {"consumer.visibility_timeout", k.Visibility != 0}} {
		if f.set {
			bad(f.field, "is SQS's; RabbitMQ has no use for it (an unacknowledged message returns when its consumer's channel closes, and a rejected one goes to consumer.dead_letter)")
		}
	}
	if s.Queue == "" {
		s.Queue = "idemcheck-{{run}}"
	}
	given := k.DeadLetter != ""
	if !given {
		k.DeadLetter = s.Queue + "-dlq"
	}
	// A dead-letter name made from a bad queue name would say its
	// problem twice.
	if checkName(bad, "consumer.topic", s.Queue) || given {
		if checkName(bad, "consumer.dead_letter", k.DeadLetter) && k.DeadLetter == s.Queue {
			bad("consumer.dead_letter", "%q is the queue itself", k.DeadLetter)
		}
	}
}

// checkName: a queue's name template holds {{run}}, is not one RabbitMQ
// keeps for itself, and fits its 255 bytes with the longest run name.
func checkName(bad func(field, format string, args ...any), field, name string) bool {
	switch {
	case !strings.Contains(name, "{{run}}"):
		bad(field, "must contain {{run}}: each run declares its own queues and deletes them, so a run never reads another's messages")
	case strings.HasPrefix(name, "amq."):
		bad(field, "%q starts with \"amq.\", which RabbitMQ keeps for its own queues", name)
	case !utf8.ValidString(name) || strings.ContainsAny(name, "\x00\n\r"):
		bad(field, "%q is not a queue name RabbitMQ takes (UTF-8 without control characters)", name)
	case len(strings.ReplaceAll(name, "{{run}}", strings.Repeat("x", longestRun))) > 255:
		bad(field, "%q is longer than RabbitMQ's 255 bytes once {{run}} (up to %d) is filled in", name, longestRun)
	default:
		return true
	}
	return false
}

func defaultTo(f *string, v string) {
	if *f == "" {
		*f = v
	}
}
