package checks

import (
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// The kinds of key an intent is sent under: its own, or one another caller
// sent first (a borrowed key, sent with the sender's own credentials).
const (
	keyOwn      = "own key"
	keyBorrowed = "borrowed key"
)

func keyKind(p Planned) string {
	if p.KeyOf != 0 {
		return keyBorrowed
	}
	return keyOwn
}

// covered records what one intent exercised once its shape was carried out
// (happened) or not.
func (st *shapeTally) covered(p Planned, happened bool, fields []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.keys[keyKind(p)]++
	if !happened {
		return
	}
	st.byKey[p.Shape+" on "+keyKind(p)]++
	if p.Shape == ShapeChangedMeaning {
		for _, f := range fields {
			st.fields[f]++
		}
	}
}

// chaosCoverage is what the run exercised next to what the config allowed:
// the faults that fired, the shapes carried out, each on own and borrowed
// keys, the meaning fields a changed-meaning retry changed, and the links
// a latency burst held traffic on.
func chaosCoverage(e *scenario.Env, names []string, not map[string]string, tl *tally, shapes []string, off map[string]string, st *shapeTally, bt *burstTally) *scenario.Coverage {
	c := &scenario.Coverage{}
	tl.mu.Lock()
	fired := map[string]int{}
	for k, v := range tl.fired {
		fired[k] = v
	}
	tl.mu.Unlock()
	c.Add("fault (fired)", names, fired, not)
	st.mu.Lock()
	defer st.mu.Unlock()
	c.Add("request shape (carried out)", shapes, st.done, off)
	kinds := []string{keyOwn}
	excl := map[string]string{}
	if len(e.Cfg.Callers) > 1 {
		kinds = append(kinds, keyBorrowed)
	} else {
		excl[keyBorrowed] = "one caller in the config: no other caller's key to send"
	}
	c.Add("key", kinds, st.keys, excl)
	var pairs []string
	for _, s := range shapes {
		for _, k := range kinds {
			pairs = append(pairs, s+" on "+k)
		}
	}
	c.Add("request shape x key", pairs, st.byKey, nil)
	fields, skipped := e.MeaningFields()
	if _, on := off[ShapeChangedMeaning]; on {
		fields, skipped = nil, map[string]string{"every field": off[ShapeChangedMeaning]}
	}
	c.Add("meaning field (changed alone)", fields, st.fields, skipped)
	var links []string
	excl = map[string]string{}
	switch {
	case len(e.BurstableLinks()) == 0:
		excl["every link"] = "no toxiproxy.links in the config"
	case e.Cfg.BurstsOff():
		excl["every link"] = "toxiproxy.bursts: off"
	default:
		for _, l := range e.BurstableLinks() {
			links = append(links, l.Name)
		}
	}
	c.Add("latency burst on link (held traffic)", links, bt.held, excl)
	return c
}
