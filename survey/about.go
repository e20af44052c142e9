// Package survey runs public idempotency implementations, each behind the
// same small payment API (CONTRACT.md), through idemcheck run and writes
// docs/SURVEY.md from the run reports.
package survey

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// About is a target's about.yaml: what implementation it is and where its
// pinned version comes from.
type About struct {
	Name      string `yaml:"name"`
	Language  string `yaml:"language"`
	Framework string `yaml:"framework"`
	Package   string `yaml:"package"`
	Registry  string `yaml:"registry"`
	Version   string `yaml:"version"`
	Storage   string `yaml:"storage"`
	Docs      string `yaml:"docs"`
	Source    string `yaml:"source"`
	// Repo is the implementation's repository (https://github.com/owner/name):
	// the one github.com address its findings may link besides the docs'
	// and source's hosts. Empty on a row of this repository.
	Repo string `yaml:"repo"`
	// Control marks a row that is not a public implementation: the
	// purpose-built correct service, whose verdicts show the survey's
	// checks pass a service that is right.
	Control bool `yaml:"control"`
	// Reference: the row is idemcheck run --reference (the reference stack
	// on servers it starts itself), not a service of the folder.
	Reference bool `yaml:"reference"`
	// Dir is the target's folder (not in the file).
	Dir string `yaml:"-"`
}

// Storages are the storages the runner can give a target, and the reference
// stack's own (its run starts its Postgres and Valkey itself).
var Storages = []string{"valkey", "postgres", "memory", "file", refStorage}

const refStorage = "postgres+valkey"

// LoadAbout reads dir/about.yaml; an error names the file and what is wrong.
func LoadAbout(dir string) (About, error) {
	path := filepath.Join(dir, "about.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		return About{}, err
	}
	var a About
	if err := yaml.UnmarshalWithOptions(b, &a, yaml.DisallowUnknownField()); err != nil {
		return About{}, fmt.Errorf("%s: %s", path, yaml.FormatError(err, false, true))
	}
	var missing []string
	for _, f := range []struct{ name, val string }{{"name", a.Name}, {"language", a.Language}, {"package", a.Package},
		{"registry", a.Registry}, {"version", a.Version}, {"storage", a.Storage}, {"docs", a.Docs}, {"source", a.Source}} {
		if strings.TrimSpace(f.val) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return About{}, fmt.Errorf("%s: missing %s", path, strings.Join(missing, ", "))
	}
	if !slices.Contains(Storages, a.Storage) {
		return About{}, fmt.Errorf("%s: storage %q: want one of %s", path, a.Storage, strings.Join(Storages, ", "))
	}
	if a.Reference != (a.Storage == refStorage) {
		return About{}, fmt.Errorf("%s: storage %q with reference %v: the storage %s is the reference stack's own, and only its", path, a.Storage, a.Reference, refStorage)
	}
	if a.Reference && !a.Control {
		return About{}, fmt.Errorf("%s: reference: true needs control: true (the reference stack is a control row)", path)
	}
	for _, f := range []struct{ name, val string }{{"docs", a.Docs}, {"source", a.Source}} {
		if isURL(f.val) {
			continue
		}
		// A file of this repository: linked relatively, so it must exist
		// (the repository's address is not one the table may invent).
		if _, err := os.Stat(filepath.Join(dir, "..", "..", f.val)); err != nil {
			return About{}, fmt.Errorf("%s: %s %q: neither an https:// URL nor a path of this repository (%v)", path, f.name, f.val, err)
		}
	}
	if !a.Control && !strings.HasPrefix(a.Repo, "https://github.com/") {
		return About{}, fmt.Errorf("%s: repo %q: want the implementation's https://github.com/owner/name", path, a.Repo)
	}
	if a.Name != filepath.Base(dir) {
		return About{}, fmt.Errorf("%s: name %q is not the folder's name %q", path, a.Name, filepath.Base(dir))
	}
	a.Dir = dir
	return a, nil
}

// Targets loads every survey/<name>/about.yaml under root, sorted by name
// with the control rows last.
func Targets(root string) ([]About, error) {
	matches, err := filepath.Glob(filepath.Join(root, "*", "about.yaml"))
	if err != nil {
		return nil, err
	}
	var out []About
	for _, m := range matches {
		a, err := LoadAbout(filepath.Dir(m))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y About) int {
		if x.Control != y.Control {
			if x.Control {
				return 1
			}
			return -1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out, nil
}
