package config

import "fmt"

// Protocol is what a profile expects of the target's idempotency protocol.
// Each field feeds one or more protocol vectors; a zero value means "not
// checked" where the comment says so.
type Protocol struct {
	Name             string
	MissingKeyStatus int // 400
	InProgressStatus int // 409
	// RetryAfter on the in-progress answer: "required", "forbidden" or "" (either).
	RetryAfter     string
	MismatchStatus int // 422 (IETF), 400 (Stripe)
	// MismatchCode, when set, must appear in the mismatch body (Stripe: idempotency_error).
	MismatchCode string
	// ReplayHeader is present on replays only ("" = not checked).
	ReplayHeader string
	// Stores5xx: "stored", "not_stored" or "" (not checked).
	Stores5xx string
	// QuotedKeySame: a Structured-Field string "K" is the same key as K.
	QuotedKeySame bool
	// ProblemJSON: error bodies are application/problem+json with a ProblemCode member.
	ProblemJSON  bool
	ProblemCode  string
	MaxKeyLength int // over-long keys (longer than this) must get MissingKeyStatus
	// Rules maps each vector to the rule it comes from, for reports.
	Rule string
}

// ProtocolOverride is the YAML form of a custom profile or of overrides to a
// named one; nil fields keep the profile's value.
type ProtocolOverride struct {
	MissingKeyStatus *int    `yaml:"missing_key_status"`
	InProgressStatus *int    `yaml:"in_progress_status"`
	RetryAfter       *string `yaml:"retry_after"`
	MismatchStatus   *int    `yaml:"mismatch_status"`
	MismatchCode     *string `yaml:"mismatch_code"`
	ReplayHeader     *string `yaml:"replay_header"`
	Stores5xx        *string `yaml:"stores_5xx"`
	QuotedKeySame    *bool   `yaml:"quoted_key_same"`
	ProblemJSON      *bool   `yaml:"problem_json"`
	ProblemCode      *string `yaml:"problem_code"`
	MaxKeyLength     *int    `yaml:"max_key_length"`
}

// Profiles are the ready-made conventions.
var Profiles = map[string]Protocol{
	"ietf": {
		Name: "ietf", MissingKeyStatus: 400, InProgressStatus: 409, MismatchStatus: 422,
		QuotedKeySame: true, ProblemJSON: true, MaxKeyLength: 255,
		Rule: "draft-ietf-httpapi-idempotency-key-header",
	},
	"stripe": {
		Name: "stripe", MissingKeyStatus: 400, InProgressStatus: 409, MismatchStatus: 400,
		MismatchCode: "idempotency_error", ReplayHeader: "Idempotent-Replayed", Stores5xx: "stored",
		MaxKeyLength: 255, Rule: "stripe idempotent requests",
	},
	"custom": {
		Name: "custom", MissingKeyStatus: 400, InProgressStatus: 409, MismatchStatus: 422,
		MaxKeyLength: 255, Rule: "custom profile",
	},
}

func applyOverride(p Protocol, o *ProtocolOverride) Protocol {
	if o == nil {
		return p
	}
	setI := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setS := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setB := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setI(&p.MissingKeyStatus, o.MissingKeyStatus)
	setI(&p.InProgressStatus, o.InProgressStatus)
	setS(&p.RetryAfter, o.RetryAfter)
	setI(&p.MismatchStatus, o.MismatchStatus)
	setS(&p.MismatchCode, o.MismatchCode)
	setS(&p.ReplayHeader, o.ReplayHeader)
	setS(&p.Stores5xx, o.Stores5xx)
	setB(&p.QuotedKeySame, o.QuotedKeySame)
	setB(&p.ProblemJSON, o.ProblemJSON)
	setS(&p.ProblemCode, o.ProblemCode)
	setI(&p.MaxKeyLength, o.MaxKeyLength)
	return p
}

// ProfileSetting names the profile setting a vector checks, for the "rule" column.
func (p Protocol) ProfileSetting(setting string) string {
	return fmt.Sprintf("profile %s: %s", p.Name, setting)
}
