package checks

import (
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
)

var dlWords = broker.Words{Who: "the queue", Past: "drained of", Evidence: "the queue held"}

type dlAcked int64

func (dlAcked) Passed(broker.Pos) bool { return true }
func (dlAcked) String() string         { return "nothing" }
func (d dlAcked) DeadLettered() int64  { return int64(d) }

// TestPoisonDLSaysWhereThePoisonEnded: on a broker with a dead-letter
// queue, Q-poison's pass line says, from the broker's count, whether the
// poison was moved there or deleted by the consumer, and its finding says
// what the queue still held.
func TestPoisonDLSaysWhereThePoisonEnded(t *testing.T) {
	at := broker.Place{Long: "message id m-3", Short: "m-3"}
	for _, c := range []struct {
		acked broker.Acked
		want  string
	}{
		{dlAcked(1), `2 good records, the poison ("x" at message id m-3), 3 more; the queue drained of all; the poison ended in the dead-letter queue (1 message(s) there)`},
		{dlAcked(0), `2 good records, the poison ("x" at message id m-3), 3 more; the queue drained of all; the dead-letter queue is empty: the consumer deleted the poison itself`},
		{broker.Offsets{}, `2 good records, the poison ("x" at message id m-3), 3 more; the queue drained of all; the broker does not count its dead-letter queue`},
	} {
		if got := poisonPassedDL(2, "x", at, 3, dlWords, c.acked); got != c.want {
			t.Errorf("pass %q, want %q", got, c.want)
		}
	}
	if got, want := poisonStuckDL(at, dlWords, "3 visible", 8*time.Second),
		"it was produced with the poison record (message id m-3) and the queue never drained of it: the queue held 3 visible after 8s, the consumer stopped at the poison"; got != want {
		t.Errorf("stuck %q, want %q", got, want)
	}
}
