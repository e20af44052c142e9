package broker

import "time"

// Words are how findings say what a broker's consumers acknowledged. Kafka's
// are a consumer group's (GroupWords); a broker whose acknowledgement is not
// an offset (an SQS DeleteMessage, a RabbitMQ ack) says its own by
// implementing Worder, so a finding never names a group or an offset the
// broker does not have.
type Words struct {
	// Ack is one record's acknowledgement ("before its offset commit").
	Ack string
	// AckOf is that acknowledgement of a named record ("after the offset
	// commit past evt_1@0/3").
	AckOf string
	// Who acknowledges, as a sentence's subject ("the group committed past
	// all 3"); Named is Who with its name ("group g never committed past").
	Who, Named string
	// Past is what Who did to a record it acknowledged, before the record
	// ("committed past"); Done the same as an adjective ("neither credited
	// nor committed").
	Past, Done string
	// Evidence labels Acked's String ("(committed p0=3)").
	Evidence string
	// Acks is what the consumer does to acknowledge, said of it ("the
	// consumer commits at once after each credit").
	Acks string
	// Hint asks whether the consumer acknowledges ("..., and commit its
	// offsets?").
	Hint string
	// Store is where a produced record is ("its record is in the topic").
	Store string
	// Lane is where records wait in order behind one another, as a check's
	// title says it ("one partition"; "the queue").
	Lane string
}

// Worder is a broker that says its own Words.
type Worder interface {
	Words() Words
}

// GroupWords are a consumer group's words (Kafka's), the group named group.
func GroupWords(group string) Words {
	return Words{Ack: "offset commit", AckOf: "the offset commit past", Who: "the group", Named: "group " + group,
		Past: "committed past", Done: "committed", Evidence: "committed", Acks: "commits", Hint: "commit its offsets", Store: "the topic", Lane: "one partition"}
}

// WordsOf are b's words: its own, else a consumer group's named group.
func WordsOf(b Broker, group string) Words {
	if w, ok := b.(Worder); ok {
		return w.Words()
	}
	return GroupWords(group)
}

// DeadLetters is Acked on a broker with DeadLetter: how many records the
// broker moved aside, read with the rest of the evidence.
type DeadLetters interface {
	DeadLettered() int64
}

// Redriver is a broker with DeadLetter that says how long, at most, it
// takes to move aside a record its consumer keeps failing (SQS: the
// redrive policy's maxReceiveCount times the visibility timeout): a check
// waiting for the poison to be moved waits that much longer.
type Redriver interface {
	DeadLetterAfter() time.Duration
}

// Visibler is a broker with Visibility that says its timeout: how long a
// received record stays hidden before the broker delivers it again.
type Visibler interface {
	VisibilityTimeout() time.Duration
}

// Receiving is Acked on a broker with Visibility: how many records are
// received and not yet acknowledged, their visibility not ended.
type Receiving interface {
	Receiving() int64
}

// Redeliveries is Acked on a broker with Requeue: how many times the
// broker delivered a record of the queue again, a counter that only grows.
// complete says the reading's counters cover every record published
// (all acknowledged or moved aside): a redelivery comes before its
// acknowledgement, so such a reading counts every redelivery before it,
// even where the counters lag the broker.
type Redeliveries interface {
	Redeliveries() (n int64, complete bool)
}
