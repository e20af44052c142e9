package survey

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goccy/go-yaml"
)

// Explanation is one entry of a target's findings.yaml: the mechanism
// behind a violation, in the pinned version's source.
type Explanation struct {
	Check    string `yaml:"check"`
	Kind     string `yaml:"kind"`
	File     string `yaml:"file"`
	Line     int    `yaml:"line"`
	Upstream string `yaml:"upstream"`
	Why      string `yaml:"why"`
}

// LoadFindings reads dir/findings.yaml; a target with no violation may have
// none.
func LoadFindings(dir string) ([]Explanation, error) {
	path := filepath.Join(dir, "findings.yaml")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Explanation
	if err := yaml.UnmarshalWithOptions(b, &out, yaml.DisallowUnknownField()); err != nil {
		return nil, fmt.Errorf("%s: %s", path, yaml.FormatError(err, false, true))
	}
	for i, e := range out {
		if e.Check == "" || e.Kind == "" || e.File == "" || e.Line <= 0 || e.Why == "" {
			return nil, fmt.Errorf("%s: entry %d: check, kind, file, line and why are required", path, i+1)
		}
	}
	return out, nil
}
