package history

import (
	"fmt"
	"strings"
)

// Operation kinds of writes made idempotent by their shape, with no key table
// (SCENARIOS.md C2 and C3; docs/HISTORY.md (C2 and C3) is their contract).
const (
	// OpWrite is a client's versioned write of an absolute value to an item,
	// carrying its device's journal counter (C2: a LIKE or UNLIKE).
	OpWrite = "write"
	// OpState is a read of an item's value at quiescence (ground truth).
	OpState = "state"
	// OpMove is a user's move of a message from one folder to another (C3).
	OpMove = "move"
	// OpDelete is a user's delete of a message.
	OpDelete = "delete"
	// OpLocate is a read of the folders a message is in (ground truth).
	OpLocate = "locate"
	// OpStore is one delivery of a message handled by a consumer, recorded
	// by the consumer (ground truth): whether it wrote anything.
	OpStore = "store"
)

// OutcomeOK is a write, move or delete the server acknowledged.
const OutcomeOK = "ok"

// ShapeInput holds the input fields of the shape kinds; it is embedded in
// Input, so its fields sit at the same level of a history line.
type ShapeInput struct {
	Device    string `json:"device,omitempty"`
	Item      string `json:"item,omitempty"`
	Value     string `json:"value,omitempty"`
	Counter   *int64 `json:"counter,omitempty"`
	PhoneTime *int64 `json:"phone_time,omitempty"`
	Message   string `json:"message,omitempty"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	Offset    *int64 `json:"offset,omitempty"`
}

// ShapeOutput holds the output fields of the shape kinds, embedded in Output.
type ShapeOutput struct {
	Value string `json:"value,omitempty"`
	// Folders is a pointer so an absent field (an input error) differs from
	// an empty list (the message is nowhere).
	Folders *[]string `json:"folders,omitempty"`
	Stored  *bool     `json:"stored,omitempty"`
}

// Folders returns a pointer to the list, for ShapeOutput.Folders.
func Folders(fs ...string) *[]string {
	if fs == nil {
		fs = []string{}
	}
	return &fs
}

// shapeFieldPath drops the embedded struct's Go name that encoding/json puts
// in a type error's path ("input.ShapeInput.counter" is "input.counter").
func shapeFieldPath(f string) string {
	return strings.NewReplacer("ShapeInput.", "", "ShapeOutput.", "").Replace(f)
}

func isShapeOp(op string) bool {
	switch op {
	case OpWrite, OpState, OpMove, OpDelete, OpLocate, OpStore:
		return true
	}
	return false
}

// validateShape applies docs/HISTORY.md (C2 and C3)'s required fields.
func validateShape(op *Op) *InputError {
	in := &op.Input
	need := func(field, v string) *InputError {
		if v == "" {
			return missing(field)
		}
		return nil
	}
	var e *InputError
	switch op.Op {
	case OpWrite:
		e = first(need("input.device", in.Device), need("input.item", in.Item), need("input.value", in.Value))
		if e == nil && in.Counter == nil {
			e = missing("input.counter")
		}
	case OpState:
		e = need("input.item", in.Item)
	case OpMove:
		e = first(need("input.message", in.Message), need("input.from", in.From), need("input.to", in.To))
	case OpDelete, OpLocate, OpStore:
		e = need("input.message", in.Message)
	}
	if e != nil || op.Return == nil {
		if op.Return == nil {
			op.Output = nil
		}
		return e
	}
	out := op.Output
	switch op.Op {
	case OpWrite, OpMove, OpDelete:
		if out == nil || out.Outcome == "" {
			return missing("output.outcome")
		}
		if out.Outcome != OutcomeOK && out.Outcome != OutcomeError {
			return &InputError{Field: "output.outcome", Msg: fmt.Sprintf("unknown outcome %q (want ok or error)", out.Outcome)}
		}
	case OpState:
		if out == nil || out.Value == "" {
			return missing("output.value")
		}
	case OpLocate:
		if out == nil || out.Folders == nil {
			return missing("output.folders")
		}
	case OpStore:
		if out == nil || out.Stored == nil {
			return missing("output.stored")
		}
	}
	return nil
}
