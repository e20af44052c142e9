package config

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// Consumer is the service's Kafka consumer of payment records: idemcheck
// creates a topic of its own for the run, gives its name to the started
// command, and the queue checks (Q-*) produce records to it as producers
// really do (retried, redelivered, behind a poison record) and count the
// credits (ledger.credits) they caused.
type Consumer struct {
	// Broker names the broker the service consumes from, one of
	// broker.Names() (default kafka): conform/broker/<name>.
	Broker string `yaml:"broker"`
	// Brokers are the bootstrap addresses of a Kafka cluster to use; empty:
	// idemcheck starts a local Kafka for the run and stops it after.
	Brokers []string `yaml:"brokers"`
	// Topic and Group name the run's topic and the consumer group the
	// service joins; both must contain {{run}}, which idemcheck replaces
	// with a name of its own per run (the topic is created and deleted,
	// the group deleted), so no run reads another's records or offsets.
	Topic string `yaml:"topic"`
	Group string `yaml:"group"`
	// Partitions of the run's topic (Kafka: default 4): the rebalance check
	// needs more than one, so that both instances own some. Brokers, Topic,
	// Group and Partitions are checked and defaulted by the broker's own
	// rules (broker.Validator; Kafka's in conform/broker/kafka/validate.go).
	Partitions int `yaml:"partitions"`
	// FIFO, ContentDedup, DeadLetter, MaxReceives and VisibilityTimeout
	// are a queue's own fields, on a broker that has them (SQS): an
	// ordered queue with a dedup window, its dedup id from the body, the
	// dead-letter queue's name template and after how many deliveries a
	// record goes there, and how long a received record stays hidden
	// (broker.QueueKind). The broker's Validator defaults them and refuses
	// one it has no use for.
	FIFO              bool   `yaml:"fifo"`
	ContentDedup      bool   `yaml:"content_dedup"`
	DeadLetter        string `yaml:"dead_letter"`
	MaxReceives       int    `yaml:"max_receives"`
	VisibilityTimeout string `yaml:"visibility_timeout"`
	visibility        time.Duration
	// Key and Message are the record's key and value templates:
	// {{payment_id}}, {{psp_payment_id}}, {{event_id}}, {{amount}},
	// {{merchant}}, {{order_id}}, {{now_ns}} (when the record was made,
	// Unix nanoseconds: a producer's send timestamp).
	Key     string `yaml:"key"`
	Message string `yaml:"message"`
	// Poison is the value of the malformed record Q-poison sends between
	// good ones (default: JSON cut off in the middle).
	Poison string `yaml:"poison"`
	// Env names the variables the started command gets the brokers
	// (comma-separated), the topic and the group in.
	Env ConsumerEnv `yaml:"env"`
	// CreateFirst makes each record's payment through the create request
	// first, and the record carries the payment id the service answered:
	// for a consumer that credits only payments its own database knows.
	CreateFirst bool `yaml:"create_first"`
	// Credits, when the consumer credits elsewhere than ledger.credits
	// reads (another table), reads the consumer's credits of one payment;
	// the same shape as ledger.credits.
	Credits *Credits `yaml:"credits"`
}

// ConsumerCredits is what reads the consumer's credits: its own credits
// section, else ledger.credits (nil: neither).
func (c *Config) ConsumerCredits() *Credits {
	switch {
	case c.Consumer != nil && c.Consumer.Credits != nil:
		return c.Consumer.Credits
	case c.Ledger != nil:
		return c.Ledger.Credits
	}
	return nil
}

// ConsumerEnv names the started command's variables of the broker (their
// defaults are the broker's: Kafka's KAFKA_BROKERS, KAFKA_TOPIC, KAFKA_GROUP).
type ConsumerEnv struct {
	Brokers string `yaml:"brokers"`
	Topic   string `yaml:"topic"`
	Group   string `yaml:"group"`
	// DeadLetter names the dead-letter queue's variable, on a broker with
	// one (SQS: SQS_DLQ_URL).
	DeadLetter string `yaml:"dead_letter"`
}

// Kind is the queue's own fields, parsed and defaulted by Validate.
func (q *Consumer) Kind() broker.QueueKind {
	return broker.QueueKind{FIFO: q.FIFO, ContentDedup: q.ContentDedup, DeadLetter: q.DeadLetter, MaxReceives: q.MaxReceives, Visibility: q.visibility}
}

// QueuePlaceholders are what consumer.key and consumer.message may use.
var QueuePlaceholders = []string{"payment_id", "psp_payment_id", "event_id", "amount", "merchant", "order_id", "now_ns"}

// DefaultPoison is a record no JSON consumer can parse.
const DefaultPoison = `{"idemcheck": "poison", "amount": `

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (v *validator) consumer() {
	q := v.c.Consumer
	if q == nil {
		return
	}
	if q.Broker == "" {
		q.Broker = "kafka"
	}
	// The broker's own rules (addresses, names, lanes) are its package's
	// (broker.Validator); this file keeps what every broker shares.
	v.dur("consumer.visibility_timeout", q.VisibilityTimeout, 0, &q.visibility)
	spec := broker.Spec{Addrs: q.Brokers, Queue: q.Topic, Group: q.Group, Lanes: q.Partitions, Kind: q.Kind(),
		Env: broker.EnvNames{Addrs: q.Env.Brokers, Queue: q.Env.Topic, Group: q.Env.Group, DeadLetter: q.Env.DeadLetter}}
	if !broker.Validate(q.Broker, &spec, v.bad) {
		v.bad("consumer.broker", "unknown broker %q (supported: %s)", q.Broker, strings.Join(broker.Names(), ", "))
	}
	q.Topic, q.Group, q.Partitions = spec.Queue, spec.Group, spec.Lanes
	k := spec.Kind
	q.FIFO, q.ContentDedup, q.DeadLetter, q.MaxReceives, q.visibility = k.FIFO, k.ContentDedup, k.DeadLetter, k.MaxReceives, k.Visibility
	q.Env = ConsumerEnv{Brokers: spec.Env.Addrs, Topic: spec.Env.Queue, Group: spec.Env.Group, DeadLetter: spec.Env.DeadLetter}
	if q.Key == "" {
		q.Key = "{{payment_id}}"
	}
	if q.Poison == "" {
		q.Poison = DefaultPoison
	}
	for _, f := range []struct{ name, val string }{{"consumer.key", q.Key}, {"consumer.message", q.Message}} {
		for _, m := range placeholderRE.FindAllStringSubmatch(f.val, -1) {
			if !slices.Contains(QueuePlaceholders, m[1]) {
				v.bad(f.name, "unknown placeholder {{%s}} (known: %s)", m[1], strings.Join(QueuePlaceholders, ", "))
			}
		}
	}
	switch {
	case strings.TrimSpace(q.Message) == "":
		v.bad("consumer.message", "required: the record the service consumes, e.g. {\"event_id\": \"{{event_id}}\", \"payment_id\": \"{{payment_id}}\", \"amount\": {{amount}}}")
	case !strings.Contains(q.Message, "{{event_id}}") || !strings.Contains(q.Message, "{{amount}}"):
		v.bad("consumer.message", "must carry {{event_id}} (what a consumer dedups by) and {{amount}} (what it credits)")
	}
	if q.FIFO && q.ContentDedup && !strings.Contains(q.Message, "{{now_ns}}") {
		// Without a field that differs, a retry's body is its first
		// copy's, the queue drops it by its hash, and Q-dup's copy without
		// a dedup id never reaches the consumer: it would prove nothing.
		v.bad("consumer.message", "must carry {{now_ns}} (a send timestamp) with consumer.content_dedup: Q-dup sends a producer retry whose body differs from the first only by it, without a dedup id")
	}
	if q.Poison == q.Message {
		v.bad("consumer.poison", "is the message itself: a poison record must be one the consumer cannot process")
	}
	for _, f := range []struct{ name, val string }{{"consumer.env.brokers", q.Env.Brokers}, {"consumer.env.topic", q.Env.Topic}, {"consumer.env.group", q.Env.Group}, {"consumer.env.dead_letter", q.Env.DeadLetter}} {
		// "": a variable the broker has no use for, or an unknown broker (said).
		if f.val != "" && !envNameRE.MatchString(f.val) {
			v.bad(f.name, "%q is not an environment variable name", f.val)
		}
	}
	v.consumerCredits(q)
}

// consumerCredits: the credits of a consumed record are read by what the
// record carries, so ledger.credits must name the payment with a
// placeholder the record fills.
func (v *validator) consumerCredits(q *Consumer) {
	if q.Credits != nil {
		v.creditsRead("consumer.credits", q.Credits)
	}
	c := v.c.ConsumerCredits()
	if c == nil {
		return // every Q check is n/a, saying why
	}
	carried := func(p string) bool {
		return strings.Contains(q.Message, "{{"+p+"}}") || strings.Contains(q.Key, "{{"+p+"}}")
	}
	names := []string{"order_id", "payment_id", "psp_payment_id"}
	ok := false
	for i, p := range names {
		if c.URL != "" && strings.Contains(c.URL, "{{"+p+"}}") && carried(p) {
			ok = true
		}
		if c.DSN != "" && regexp.MustCompile(`\$`+string(rune('1'+i))+`\b`).MatchString(c.Query) && carried(p) {
			ok = true
		}
	}
	if !ok {
		v.bad("consumer.message", "carries none of the ids ledger.credits names the payment by ({{order_id}} / $1, {{payment_id}} / $2, {{psp_payment_id}} / $3): idemcheck could not read a record's credits")
	}
}
