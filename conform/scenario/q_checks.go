package scenario

// QueueChecks produce payment records to the service's Kafka consumer as a
// producer and a broker really deliver them; each is judged from the
// credits the service records (queue.go, queue_judge.go). Q-poison runs
// last: a consumer that stops a partition at the poison stays stopped.
func QueueChecks() []*Check {
	return []*Check{
		{ID: "Q-dup", Title: "a record produced twice (a producer retry), at once and after a commit", Level: Safety, Rule: RuleQueue, Needs: needQueue, Run: runQDup},
		{ID: "Q-kill", Title: "the consumer SIGKILLed between its credit and its offset commit, restarted", Level: Safety, Rule: RuleQueue, Needs: needAll(needQueue, needQueueProcs), Run: runQKill},
		{ID: "Q-rebalance", Title: "a consumer leaves and joins the group mid-stream (rebalances)", Level: Safety, Rule: RuleQueue, Needs: needAll(needQueue, needQueueReplicas), Run: runQRebalance},
		{ID: "Q-poison", Title: "a malformed record between good ones on one partition", Level: Safety, Rule: RuleQueue, Needs: needQueue, Run: runQPoison},
	}
}
