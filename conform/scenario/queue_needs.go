package scenario

import (
	"fmt"

	"github.com/idemcheck/idemcheck/conform/broker"
)

// NeedBroker says why a queue check that needs need of the consumer's
// broker does not apply ("" = the broker has all of it, or there is no
// consumer section, which NeedQueue says).
func NeedBroker(e *Env, need broker.Cap) string {
	if e.Queue == nil || need == 0 {
		return ""
	}
	if lacks := e.Queue.Caps.Lacks(need); lacks != 0 {
		return fmt.Sprintf("needs %s, which broker %s (consumer.broker) does not have", lacks, e.Queue.Cfg.Broker)
	}
	return ""
}

// NotApplicable is why c does not apply to e ("" = it applies): what it
// needs of the consumer's broker first, which no change of the config
// but the broker gives (Q-rebalance on SQS is n/a for its lack of
// partitions, not for one instance), then its own Needs. Without a
// consumer section the broker says nothing and the Needs say so.
func NotApplicable(e *Env, c *Check) string {
	if why := BrokerLacks(e, c); why != "" {
		return why
	}
	if c.Needs != nil {
		return c.Needs(e)
	}
	return ""
}

// BrokerLacks is why c cannot run on the consumer's broker at all ("" =
// the broker has what c needs): no config of this broker changes it.
func BrokerLacks(e *Env, c *Check) string {
	if why := NeedBroker(e, c.Broker); why != "" {
		return why
	}
	return NeedBrokerOneOf(e, c.BrokerOneOf)
}

// NeedBrokerOneOf says why a queue check that needs one of any does not
// apply ("" = the broker has some of it, or there is no consumer section).
func NeedBrokerOneOf(e *Env, any broker.Cap) string {
	if e.Queue == nil || any == 0 || e.Queue.Caps&any != 0 {
		return ""
	}
	return fmt.Sprintf("needs %s, which broker %s (consumer.broker) does not have", any.Either(), e.Queue.Cfg.Broker)
}
