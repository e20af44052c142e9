package scenario

// In is c as the run says it: with a consumer on a broker, a queue check's
// title in that broker's words (BrokerTitle), so a run on SQS does not
// name an offset commit; on Kafka the title is Title, byte for byte.
func (c *Check) In(e *Env) *Check {
	if c.BrokerTitle == nil || e == nil || e.Queue == nil {
		return c
	}
	t := c.BrokerTitle(e.Queue.Words())
	if t == "" || t == c.Title {
		return c
	}
	cp := *c
	cp.Title = t
	return &cp
}
