package fakepsp

// RegisterWebhook registers url for the first account, as the dialect's API
// would (POST /v1/webhook_endpoints); no events means every event ("*").
func (p *PSP) RegisterWebhook(rawURL string, events ...string) (string, error) {
	return p.RegisterWebhookFor(p.firstKey, rawURL, events...)
}

// RegisterWebhookFor registers url for the account of secretKey.
func (p *PSP) RegisterWebhookFor(secretKey, rawURL string, events ...string) (string, error) {
	return p.api.AddEndpoint(secretKey, rawURL, events...)
}

// DeliveryAdded returns a channel closed at the next delivery logged, so a
// harness acts the moment an answer arrives (a kill right after the ack).
func (p *PSP) DeliveryAdded() <-chan struct{} { return p.dlog.Added() }

// Deliveries returns every webhook delivery attempt so far, in order.
func (p *PSP) Deliveries() []Delivery { return p.dlog.All() }
