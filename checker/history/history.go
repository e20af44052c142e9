// Package checker reads, records and checks idemcheck histories (see HISTORY.md).
package history

// Operation kinds of HISTORY.md v1.
const (
	OpCreate  = "create"
	OpResolve = "resolve"
	OpCharge  = "charge"
	OpRefund  = "refund"
	OpCredit  = "credit"
	OpNotify  = "notify"
	OpBalance = "balance"
	// OpSink is a read of the stream job's sink at quiescence (checker/sink.go).
	OpSink = "sink"
)

// Outcomes a client can be told, for create and resolve.
const (
	OutcomeSucceeded  = "succeeded"
	OutcomeFailed     = "failed"
	OutcomeProcessing = "processing"
	OutcomeInProgress = "in_progress"
	OutcomeMismatch   = "mismatch"
	OutcomeVoid       = "void"
	OutcomeError      = "error"
)

// Op is one line of a history file. Return is nil when the caller never learned
// the outcome (timeout, crash): porcupine treats it as returning at infinity.
type Op struct {
	Process   string  `json:"process"`
	Op        string  `json:"op"`
	Call      int64   `json:"call"`
	Return    *int64  `json:"return"`
	Intent    string  `json:"intent,omitempty"`
	PaymentID string  `json:"payment_id,omitempty"`
	Input     Input   `json:"input"`
	Output    *Output `json:"output,omitempty"`
	// Region names the Region that answered a client op (R1, R2), when the
	// target has Regions; optional, the checker does not read it.
	Region string `json:"region,omitempty"`
}

// Input holds the fields of every kind's input; each kind uses its own subset.
// Pointers mark fields whose absence the strict reader must tell from zero.
type Input struct {
	Fingerprint string `json:"fingerprint,omitempty"`
	Amount      *int64 `json:"amount,omitempty"`
	Currency    string `json:"currency,omitempty"`
	PSPKey      string `json:"psp_key,omitempty"`
	ChargeID    string `json:"charge_id,omitempty"`
	Merchant    string `json:"merchant,omitempty"`
	EventID     string `json:"event_id,omitempty"`
	ReplaceID   string `json:"replace_id,omitempty"`
	Recipient   string `json:"recipient,omitempty"`
	// Request (refund, optional) is the refund request a PSP refund carries
	// out, e.g. the merchant's own refund id: two refunds of one request
	// under two keys are a double-refund.
	Request  string            `json:"request,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Day      string            `json:"day,omitempty"` // sink (required), credit (optional)

	// The shape kinds' fields (shape.go).
	ShapeInput
}

// Output holds the fields of every kind's output.
type Output struct {
	Outcome   string `json:"outcome,omitempty"`
	PaymentID string `json:"payment_id,omitempty"`
	ChargeID  string `json:"charge_id,omitempty"`
	RefundID  string `json:"refund_id,omitempty"`
	Shown     *int   `json:"shown,omitempty"`
	Alert     *bool  `json:"alert,omitempty"`
	Balance   *int64 `json:"balance,omitempty"`
	Total     *int64 `json:"total,omitempty"` // sink
	Tag       *int64 `json:"tag,omitempty"`   // sink

	// The shape kinds' fields (shape.go).
	ShapeOutput
}

// Int64 and friends make literal pointers for Input and Output fields.
func Int64(v int64) *int64 { return &v }

// Int returns a pointer to v.
func Int(v int) *int { return &v }

// Bool returns a pointer to v.
func Bool(v bool) *bool { return &v }

// History is a whole file's operations, in no particular order.
type History []Op
