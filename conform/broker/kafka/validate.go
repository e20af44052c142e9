package kafka

import (
	"net"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// nameRE is what Kafka's topic and group names may hold.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]*$`)

// Validate is Kafka's rules for the consumer section: bootstrap addresses
// are host:port; the topic and the group (default idemcheck-{{run}}) each
// hold {{run}} and only what Kafka's names may; 1 to 64 partitions
// (default 4); the command's variables default to KAFKA_BROKERS,
// KAFKA_TOPIC and KAFKA_GROUP.
func Validate(s *broker.Spec, bad func(field, format string, args ...any)) {
	defaultTo(&s.Env.Addrs, "KAFKA_BROKERS")
	defaultTo(&s.Env.Queue, "KAFKA_TOPIC")
	defaultTo(&s.Env.Group, "KAFKA_GROUP")
	for i, b := range s.Addrs {
		if _, _, err := net.SplitHostPort(b); err != nil {
			bad("consumer.brokers", "brokers[%d] %q is not host:port", i, b)
		}
	}
	if s.Queue == "" {
		s.Queue = "idemcheck-{{run}}"
	}
	if s.Group == "" {
		s.Group = "idemcheck-{{run}}"
	}
	for _, f := range []struct{ name, val string }{{"consumer.topic", s.Queue}, {"consumer.group", s.Group}} {
		if !strings.Contains(f.val, "{{run}}") {
			bad(f.name, "must contain {{run}}: each run creates its own topic and group and deletes them, so a run never reads another's records or offsets")
		} else if !nameRE.MatchString(strings.ReplaceAll(f.val, "{{run}}", "")) {
			bad(f.name, "%q may hold only letters, digits, '.', '_' and '-' besides {{run}}", f.val)
		}
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"consumer.fifo", s.Kind.FIFO}, {"consumer.content_dedup", s.Kind.ContentDedup}, {"consumer.dead_letter", s.Kind.DeadLetter != ""},
		{"consumer.max_receives", s.Kind.MaxReceives != 0}, {"consumer.visibility_timeout", s.Kind.Visibility != 0}, {"consumer.env.dead_letter", s.Env.DeadLetter != ""}} {
		if f.set {
			bad(f.name, "is not a setting of consumer.broker: kafka")
		}
	}
	if s.Lanes == 0 {
		s.Lanes = 4
	} else if s.Lanes < 1 || s.Lanes > 64 {
		bad("consumer.partitions", "must be between 1 and 64, got %d", s.Lanes)
	}
}

func defaultTo(f *string, v string) {
	if *f == "" {
		*f = v
	}
}
