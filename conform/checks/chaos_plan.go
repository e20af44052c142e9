package checks

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// ChaosPlan replaces the drawn schedule (a shrunk one replayed) and hands
// the schedule a run used to whoever shrinks it.
type ChaosPlan struct {
	// Given, when set, is run instead of the seed's schedule.
	Given []Planned
	// Used receives the schedule the run used.
	Used func([]Planned)
	// Refused receives why Given cannot run on this target: bad input, not
	// a verdict.
	Refused func(error)
	// Window is the longest stretch judged in one piece (DefaultChaosWindow
	// when 0); a longer run goes in rounds (chaos_rounds.go).
	Window time.Duration
	// HistoryFile, when set, receives a multi-round run's judged history
	// (JSONL), and the rounds' schedules beside it.
	HistoryFile string
}

// PlanSchema is the version of a schedule file's JSON shape.
const PlanSchema = 1

// PlanFile is a chaos schedule written to disk: `run --schedule F` replays
// it with its seed (the intents' meanings and the other streams' draws).
type PlanFile struct {
	Schema   int         `json:"schedule_schema_version"`
	Seed     uint64      `json:"seed,string"`
	Duration string      `json:"duration"`
	Note     string      `json:"note,omitempty"`
	Intents  []PlanEntry `json:"intents"`
}

// PlanEntry is one intent of a schedule file (Planned, with names).
type PlanEntry struct {
	N       int    `json:"n"`
	Caller  int    `json:"caller"`
	Fault   string `json:"fault"`
	Copies  int    `json:"copies"`
	Delay   string `json:"delay"`
	KeyOf   int    `json:"key_of,omitempty"`
	Shape   string `json:"shape,omitempty"`
	Stretch int    `json:"stretch,omitempty"`
}

// WritePlan writes a schedule file.
func WritePlan(path string, seed uint64, d time.Duration, note string, plan []Planned) error {
	f := PlanFile{Schema: PlanSchema, Seed: seed, Duration: d.String(), Note: note, Intents: []PlanEntry{}}
	for _, p := range plan {
		f.Intents = append(f.Intents, PlanEntry{p.N, p.Caller, p.Fault, p.Copies, p.Delay.String(), p.KeyOf, p.Shape, p.Stretch})
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadPlan reads a schedule file, naming the file, the intent and the field
// of anything it cannot take. Whether its faults and shapes apply to the
// target is judged when the run starts (runChaos).
func ReadPlan(path string) (*PlanFile, []Planned, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var f PlanFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, fmt.Errorf("%s: not a schedule file: %v", path, err)
	}
	if f.Schema != PlanSchema {
		return nil, nil, fmt.Errorf("%s: schedule_schema_version %d, this idemcheck reads %d", path, f.Schema, PlanSchema)
	}
	if f.Seed == 0 {
		return nil, nil, fmt.Errorf("%s: seed: missing (the run's meanings and other draws come from it)", path)
	}
	if len(f.Intents) == 0 {
		return nil, nil, fmt.Errorf("%s: intents: empty, nothing to run", path)
	}
	var plan []Planned
	for i, e := range f.Intents {
		where := fmt.Sprintf("%s: intents[%d]", path, i)
		d, err := time.ParseDuration(e.Delay)
		switch {
		case e.N != i+1:
			return nil, nil, fmt.Errorf("%s.n: %d, want %d (intents are numbered 1, 2, ... in order)", where, e.N, i+1)
		case e.Caller < 0:
			return nil, nil, fmt.Errorf("%s.caller: %d is not a caller", where, e.Caller)
		case e.Fault == "":
			return nil, nil, fmt.Errorf("%s.fault: missing (%q for none)", where, NoFault)
		case e.Copies < 1:
			return nil, nil, fmt.Errorf("%s.copies: %d, want at least 1", where, e.Copies)
		case err != nil || d < 0:
			return nil, nil, fmt.Errorf("%s.delay: %q is not a duration", where, e.Delay)
		case e.KeyOf < 0 || e.KeyOf >= e.N:
			return nil, nil, fmt.Errorf("%s.key_of: %d is not an earlier intent", where, e.KeyOf)
		case e.Shape != "" && !slices.Contains(shapeCatalogue, e.Shape):
			return nil, nil, fmt.Errorf("%s.shape: %q is not a shape (have %v)", where, e.Shape, shapeCatalogue)
		case e.Stretch < 0:
			return nil, nil, fmt.Errorf("%s.stretch: %d, want a share of the timeout in per cent", where, e.Stretch)
		}
		plan = append(plan, Planned{N: e.N, Caller: e.Caller, Fault: e.Fault, Copies: e.Copies, Delay: d, KeyOf: e.KeyOf, Shape: e.Shape, Stretch: e.Stretch})
	}
	return &f, plan, nil
}

// Renumber numbers a subset of a schedule 1, 2, ... again; an intent that
// borrowed the key of an intent no longer in it sends its own key.
func Renumber(plan []Planned) []Planned {
	out := make([]Planned, len(plan))
	pos := map[int]int{}
	for i, p := range plan {
		pos[p.N] = i + 1
		p.N = i + 1
		if p.KeyOf > 0 {
			p.KeyOf = pos[p.KeyOf] // 0 when gone
		}
		out[i] = p
	}
	return out
}

// checkGiven says why a given schedule cannot run on this target: a fault
// that does not apply, a shape it has not enabled, a caller it lacks.
func checkGiven(plan []Planned, faultNames []string, shapes []string, callers int) error {
	for _, p := range plan {
		switch {
		case p.Fault != NoFault && !slices.Contains(faultNames, p.Fault):
			return fmt.Errorf("schedule intent %d: fault %q does not apply to this target (applicable: %v)", p.N, p.Fault, faultNames)
		case p.Shape != "" && p.Shape != ShapePlain && !slices.Contains(shapes, p.Shape):
			return fmt.Errorf("schedule intent %d: shape %q is not enabled by this config (enabled: %v)", p.N, p.Shape, shapes)
		case p.Caller >= callers:
			return fmt.Errorf("schedule intent %d: caller %d, the config has %d", p.N, p.Caller, callers)
		}
	}
	return nil
}
