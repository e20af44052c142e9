package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Coverage is what a chaos run exercised, dimension by dimension, next to
// what the config allowed: a gap is named, never hidden.
type Coverage struct {
	Dimensions []CoverageDim `json:"dimensions"`
	// Covered of Allowed cells: every allowed value of every dimension.
	Covered int `json:"covered"`
	Allowed int `json:"allowed"`
}

// CoverageDim is one dimension (fault, shape, key, shape x key, meaning
// field, ...): how often each allowed value was exercised, and why each of
// the others was not allowed.
type CoverageDim struct {
	Name      string         `json:"name"`
	Allowed   []string       `json:"allowed"`
	Exercised map[string]int `json:"exercised"`
	// Missing are allowed values exercised zero times.
	Missing []string `json:"missing,omitempty"`
	// Excluded are values the config rules out, each with why.
	Excluded map[string]string `json:"excluded,omitempty"`
}

// Add appends a dimension and counts its cells.
func (c *Coverage) Add(name string, allowed []string, exercised map[string]int, excluded map[string]string) {
	d := CoverageDim{Name: name, Allowed: allowed, Exercised: map[string]int{}, Excluded: excluded}
	for _, v := range allowed {
		d.Exercised[v] = exercised[v]
		c.Allowed++
		if exercised[v] > 0 {
			c.Covered++
		} else {
			d.Missing = append(d.Missing, v)
		}
	}
	if len(d.Excluded) == 0 {
		d.Excluded = nil
	}
	c.Dimensions = append(c.Dimensions, d)
}

// Figure is the covered share as a percentage, and false when nothing was
// allowed (then there is no figure to give).
func (c *Coverage) Figure() (float64, bool) {
	if c == nil || c.Allowed == 0 {
		return 0, false
	}
	return 100 * float64(c.Covered) / float64(c.Allowed), true
}

// Lines are the console's words: one line per dimension, then the figure.
func (c *Coverage) Lines() []string {
	var out []string
	for _, d := range c.Dimensions {
		n := len(d.Allowed) - len(d.Missing)
		l := fmt.Sprintf("coverage of %s: %d of %d", d.Name, n, len(d.Allowed))
		if len(d.Missing) > 0 {
			l += "; not exercised: " + strings.Join(d.Missing, ", ")
		}
		for _, v := range slices.Sorted(maps.Keys(d.Excluded)) {
			l += fmt.Sprintf("; %s not allowed: %s", v, d.Excluded[v])
		}
		out = append(out, l)
	}
	if f, ok := c.Figure(); ok {
		out = append(out, fmt.Sprintf("coverage: %.0f%% (%d of %d cells)", f, c.Covered, c.Allowed))
	}
	return out
}
