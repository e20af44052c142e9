package stripe

// Error is the body of every Stripe error: {"error":{...}} as Stripe sends it.
type Error struct {
	Type          string         `json:"type"`
	Code          string         `json:"code,omitempty"`
	DeclineCode   string         `json:"decline_code,omitempty"`
	Message       string         `json:"message"`
	Param         string         `json:"param,omitempty"`
	PaymentIntent map[string]any `json:"payment_intent,omitempty"`
	Charge        string         `json:"charge,omitempty"`
	PaymentMethod map[string]any `json:"payment_method,omitempty"`
	DocURL        string         `json:"doc_url,omitempty"`
	RequestLogURL string         `json:"request_log_url,omitempty"`
}
