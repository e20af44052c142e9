package survey

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
)

// Explanation is one entry of a target's findings.yaml: the mechanism
// behind a violation, in the pinned version's source, or (an entry with a
// note and no kind) a note on a cell whatever its verdict.
type Explanation struct {
	Check    string     `yaml:"check"`
	Kind     string     `yaml:"kind"`
	File     string     `yaml:"file"`
	Line     int        `yaml:"line"`
	Upstream []Upstream `yaml:"upstream"`
	Why      string     `yaml:"why"`
	// The judgement of a check, given once per violated check (on any one
	// of its entries): basis "docs" when the cell contradicts what the
	// implementation's own documentation promises (Docs quotes it), "rule"
	// when it follows from a documented behaviour (Docs) judged by this
	// project's rule (Rule).
	Basis string `yaml:"basis"`
	Docs  *Quote `yaml:"docs"`
	Rule  *Quote `yaml:"rule"`
	// Note: the cell depends on the survey's own contract or environment
	// (the handler's search, a converge window, a Lambda utility outside
	// Lambda); a footnote of the cell.
	Note string `yaml:"note"`
	// Setting: the setting a user would change that makes the cell pass.
	Setting string `yaml:"setting"`
	// Report is the upstream-ready report draft of the mechanism
	// (survey/reports/<target>-<mechanism>.md); checks that share a
	// mechanism share one.
	Report string `yaml:"report"`
}

// Quote is a quoted sentence and where it is: a URL, or for the project's
// own rules a path relative to docs/ (SCENARIOS.md#run-A1).
type Quote struct {
	Text string `yaml:"text"`
	Link string `yaml:"link"`
}

// Upstream is an issue or pull request of the implementation's tracker and
// what it is about (a bug report, a feature request, a fix).
type Upstream struct {
	URL  string `yaml:"url"`
	What string `yaml:"what"`
}

// Bases are the two grounds a violation can stand on.
var Bases = []string{"docs", "rule"}

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
	judged := map[string]int{}
	for i, e := range out {
		at := fmt.Sprintf("%s: entry %d (%s %s)", path, i+1, e.Check, e.Kind)
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		if e.Basis != "" {
			judged[e.Check]++
		}
	}
	// Every violated check is judged exactly once.
	for i, e := range out {
		if e.Kind == "" || e.Kind == "deviation" {
			continue
		}
		if n := judged[e.Check]; n != 1 {
			return nil, fmt.Errorf("%s: entry %d (%s %s): check %s has %d entries with a basis, want one (docs or rule, with its quotes)", path, i+1, e.Check, e.Kind, e.Check, n)
		}
	}
	return out, nil
}

// check is what one entry must hold on its own.
func (e Explanation) check() error {
	if e.Check == "" {
		return errors.New("check is required")
	}
	if e.Kind == "" {
		if e.Note == "" || e.File != "" || e.Why != "" || e.Basis != "" {
			return errors.New("an entry without a kind is a cell's note: note only (no file, why or basis)")
		}
		return nil
	}
	if e.File == "" || e.Line <= 0 || e.Why == "" {
		return errors.New("check, kind, file, line and why are required")
	}
	for _, u := range e.Upstream {
		if !strings.HasPrefix(u.URL, "https://github.com/") || strings.TrimSpace(u.What) == "" {
			return fmt.Errorf("upstream %q: a github.com URL and what it is are required", u.URL)
		}
	}
	if (e.Basis == "") != (e.Report == "") {
		return errors.New("basis and report go together: the entry that judges a check names its report draft")
	}
	if e.Report != "" && (!strings.HasPrefix(e.Report, "survey/reports/") || !strings.HasSuffix(e.Report, ".md")) {
		return fmt.Errorf("report %q: want survey/reports/<name>.md", e.Report)
	}
	switch e.Basis {
	case "":
		if e.Docs != nil || e.Rule != nil || e.Setting != "" {
			return errors.New("docs, rule and setting go with a basis (on the entry that judges the check)")
		}
	case "docs":
		if !e.Docs.complete() {
			return errors.New("basis docs: docs (text and link) is required: the promise the cell contradicts")
		}
	case "rule":
		if !e.Docs.complete() || !e.Rule.complete() {
			return errors.New("basis rule: docs (the documented behaviour) and rule (this project's rule, quoted from docs/) are required")
		}
	default:
		return fmt.Errorf("basis %q: want one of %s", e.Basis, strings.Join(Bases, ", "))
	}
	return nil
}

func (q *Quote) complete() bool {
	return q != nil && strings.TrimSpace(q.Text) != "" && strings.TrimSpace(q.Link) != ""
}
