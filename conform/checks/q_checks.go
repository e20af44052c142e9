package checks

import (
	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// What the Q checks need of the consumer's broker (broker.Cap). Each waits
// first for the broker's own readiness signal (every broker has one);
// Q-kill's kills inside a record's processing wait for the killed members
// to leave where the broker lists them, and for its readiness elsewhere;
// Q-rebalance reads which member holds which partition; Q-poison needs one
// of its ends: the poison stops the partition behind it, or the broker
// moves it to a dead-letter queue.
const (
	needsQDup       broker.Cap = 0
	needsQKill      broker.Cap = 0
	needsQRebalance            = broker.Partitions | broker.Rebalance | broker.Members
	needsQPoison               = broker.Partitions | broker.DeadLetter
)

// QueueChecks produce payment records to the service's consumer as a
// producer and a broker really deliver them; each is judged from the
// credits the service records (queue.go, queue_judge.go). Q-poison runs
// last: a consumer that stops a partition at the poison stays stopped.
func QueueChecks() []*scenario.Check {
	return []*scenario.Check{
		{ID: "Q-dup", Title: "a record produced twice (a producer retry), at once and after a commit", Level: scenario.Safety, Rule: scenario.RuleQueue, WithoutCreate: true, Needs: scenario.NeedQueue, Broker: needsQDup, Run: runQDup},
		{ID: "Q-kill", Title: qKillTitle(broker.GroupWords("")), BrokerTitle: qKillTitle, Level: scenario.Safety, Rule: scenario.RuleQueue, WithoutCreate: true, Needs: scenario.NeedAll(scenario.NeedQueue, scenario.NeedQueueProcs), Broker: needsQKill, Run: runQKill},
		{ID: "Q-rebalance", Title: "a consumer leaves (SIGTERM with a grace, or SIGKILL) while it holds records it has not committed, and rejoins (rebalances)", Level: scenario.Safety, Rule: scenario.RuleQueue, WithoutCreate: true, Needs: scenario.NeedAll(scenario.NeedQueue, scenario.NeedQueueReplicas), Broker: needsQRebalance, Run: runQRebalance},
		{ID: "Q-visibility", Title: "a consumer frozen (SIGSTOP) past the visibility timeout while it holds a received record, which another consumer receives again; then thawed", Level: scenario.Safety, Rule: scenario.RuleQueue, WithoutCreate: true, Needs: scenario.NeedAll(scenario.NeedQueue, scenario.NeedQueueProcs, NeedQueuePause), Broker: needsQVisibility, Run: runQVisibility},
		{ID: "Q-poison", Title: qPoisonTitle(broker.GroupWords("")), BrokerTitle: qPoisonTitle, Level: scenario.Safety, Rule: scenario.RuleQueue, WithoutCreate: true, Needs: scenario.NeedQueue, BrokerOneOf: needsQPoison, Run: runQPoison},
	}
}

// qKillTitle and qPoisonTitle say Q-kill's and Q-poison's titles in a
// broker's words; Kafka's (a consumer group's) are the catalogue's.
func qKillTitle(w broker.Words) string {
	if w.Ack == "" {
		return ""
	}
	return "the consumer SIGKILLed between its credit and its " + w.Ack + ", and at seeded points inside a record's processing, restarted"
}

func qPoisonTitle(w broker.Words) string {
	if w.Lane == "" {
		return ""
	}
	return "a malformed record between good ones on " + w.Lane
}
