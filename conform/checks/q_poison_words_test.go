package checks

import (
	"fmt"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/broker/kafka"
	"github.com/idemcheck/idemcheck/conform/config"
)

// TestPoisonWordsOnKafkaAreTodays: Q-poison's finding and pass line, with
// the poison's place in Kafka's words, are the texts Q-poison printed
// before brokers described a record's place (built here with those
// formats); a broker that names records says its own words instead.
func TestPoisonWordsOnKafkaAreTodays(t *testing.T) {
	at := (&kafka.Kafka{}).Place(broker.Pos{Lane: 0, Offset: 7})
	if got, want := poisonStuck(at, 5, 2*time.Second),
		fmt.Sprintf("it sits behind the poison record (partition 0 offset %d) and the group's offset stayed at %d for %s: the partition stopped at the poison", 7, 5, 2*time.Second); got != want {
		t.Errorf("stuck: %q, want %q", got, want)
	}
	if got, want := poisonPassed(2, config.DefaultPoison, at, 3),
		fmt.Sprintf("%d good records, the poison (%q at partition 0 offset %d), %d more; the group committed past all", 2, config.DefaultPoison, 7, 3); got != want {
		t.Errorf("pass: %q, want %q", got, want)
	}
	other := broker.Place{Long: "message id m-3", Short: "m-3"}
	if got, want := poisonPassed(2, "x", other, 3), `2 good records, the poison ("x" at message id m-3), 3 more; the group committed past all`; got != want {
		t.Errorf("another broker's words: %q, want %q", got, want)
	}
}
