package history

import (
	"fmt"
	"reflect"
	"strings"
)

// scope says how an op names what it is about.
type scope int

const (
	scopeNone   scope = iota // balance reads: a merchant, no intent
	scopeIntent              // client ops: "intent" is required
	scopeEffect              // ground truth: intent, payment_id or metadata
)

// opKind is one op of HISTORY.md and the fields it must carry. Adding an op
// kind (a stream sink read, a ground-truth op of another scenario) is one row
// here plus its constant; the reader, the recorder and the checker's input
// filter all read this table. Fields are json names: "input.X" and
// "output.X" are looked up on Input and Output by their json tags.
type opKind struct {
	Name  string
	scope scope
	// input lists the required input fields, in the order errors name them.
	input []string
	// output lists the output fields required once the op returned.
	output []string
	// outcomes: output.outcome must be one of the client outcomes.
	outcomes bool
}

var OpKinds = []opKind{
	// A create's currency is optional: a request that sends none is
	// recorded without one (HISTORY.md), and a missing one is no mismatch.
	{Name: OpCreate, scope: scopeIntent, input: []string{"fingerprint", "amount"}, output: []string{"outcome"}, outcomes: true},
	{Name: OpResolve, scope: scopeIntent, output: []string{"outcome"}, outcomes: true},
	{Name: OpCharge, scope: scopeEffect, input: []string{"psp_key", "amount"}, output: []string{"charge_id"}},
	{Name: OpRefund, scope: scopeEffect, input: []string{"psp_key", "amount", "charge_id"}, output: []string{"refund_id"}},
	{Name: OpCredit, scope: scopeEffect, input: []string{"merchant", "amount", "event_id"}},
	{Name: OpNotify, scope: scopeEffect, input: []string{"replace_id", "recipient"}, output: []string{"shown"}},
	{Name: OpBalance, scope: scopeNone, input: []string{"merchant"}, output: []string{"balance"}},
	{Name: OpSink, scope: scopeNone, input: []string{"merchant", "day"}, output: []string{"total", "tag"}},
}

func lookupKind(name string) *opKind {
	for i := range OpKinds {
		if OpKinds[i].Name == name {
			return &OpKinds[i]
		}
	}
	return nil
}

// knownOp: a row of the table, or one of the shape kinds (shape.go), which
// validate their own fields.
func knownOp(op string) bool { return lookupKind(op) != nil || isShapeOp(op) }

// The fields a line may carry, from the json tags of the types themselves,
// so a field added to Input or Output is known without touching the reader.
var (
	knownTop    = jsonNames(reflect.TypeOf(wireOp{}))
	knownInput  = jsonNames(reflect.TypeOf(Input{}))
	knownOutput = jsonNames(reflect.TypeOf(Output{}))
)

func jsonNames(t reflect.Type) map[string]bool {
	m := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
			// An embedded struct's fields land flat in the JSON (shape.go).
			for n := range jsonNames(f.Type) {
				m[n] = true
			}
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}

// present reports whether the struct v (Input or Output) has the field with
// json name set: a non-empty string, a non-nil pointer or map.
func present(v reflect.Value, name string) bool {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
			if present(v.Field(i), name) {
				return true
			}
			continue
		}
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return !v.Field(i).IsZero()
		}
	}
	return false
}

// inputHas is present for Input, with the common fields without reflection.
func inputHas(in *Input, name string) bool {
	switch name {
	case "fingerprint":
		return in.Fingerprint != ""
	case "amount":
		return in.Amount != nil
	case "currency":
		return in.Currency != ""
	case "psp_key":
		return in.PSPKey != ""
	case "charge_id":
		return in.ChargeID != ""
	case "merchant":
		return in.Merchant != ""
	case "event_id":
		return in.EventID != ""
	case "replace_id":
		return in.ReplaceID != ""
	case "recipient":
		return in.Recipient != ""
	}
	return present(reflect.ValueOf(in).Elem(), name)
}

func outputHas(out *Output, name string) bool {
	switch name {
	case "outcome":
		return out.Outcome != ""
	case "charge_id":
		return out.ChargeID != ""
	case "refund_id":
		return out.RefundID != ""
	case "shown":
		return out.Shown != nil
	case "balance":
		return out.Balance != nil
	}
	return present(reflect.ValueOf(out).Elem(), name)
}

// validate applies the table's required fields to op; it does not change op.
func validate(op *Op) *InputError {
	if isShapeOp(op.Op) {
		return validateShape(op)
	}
	k := lookupKind(op.Op)
	if k == nil {
		return &InputError{Field: "op", Msg: fmt.Sprintf("unknown op %q", op.Op)}
	}
	in := &op.Input
	var e *InputError
	switch k.scope {
	case scopeIntent:
		if op.Intent == "" {
			e = missing("intent")
		}
	case scopeEffect:
		if op.Intent == "" && op.PaymentID == "" && in.Metadata["intent"] == "" && in.Metadata["payment_id"] == "" {
			e = &InputError{Field: "intent", Msg: "missing (an effect names its intent or payment_id)"}
		}
	}
	for _, f := range k.input {
		if e != nil {
			break
		}
		if !inputHas(in, f) {
			e = missing("input." + f)
		}
	}
	if e != nil || op.Return == nil {
		return e // HISTORY.md: output is ignored when return is null
	}
	for _, f := range k.output {
		if op.Output == nil || !outputHas(op.Output, f) {
			return missing("output." + f)
		}
	}
	if k.outcomes && !knownOutcome(op.Output.Outcome) {
		return &InputError{Field: "output.outcome", Msg: fmt.Sprintf("unknown outcome %q", op.Output.Outcome)}
	}
	return nil
}
