package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"

	"github.com/anishathalye/porcupine"
)

// WriteHTML draws porcupine's picture of every partition a violation is
// about, one file per partition in dir, with the fault windows and the
// violations as annotations. It returns the paths written. Illegal partitions
// show porcupine's longest partial linearizations; partitions that are legal
// (a violation found by counting, e.g. a second credit) show the order found.
func (r *Result) WriteHTML(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	var paths []string
	used := map[string]bool{}
	for _, p := range r.pictured() {
		var notes []porcupine.Annotation
		var said []string
		for _, v := range r.Violations {
			if r.about(v, p) && len(v.Ops) > 0 {
				notes = append(notes, violationNote(v.Kind, v.Message, v.Ops[0].Call, v.Ops[len(v.Ops)-1].Call))
				said = append(said, v.Kind+": "+v.Message)
			}
		}
		base := fileName(p.Name)
		for n := 2; used[base]; n++ {
			base = fmt.Sprintf("%s-%d", fileName(p.Name), n)
		}
		used[base] = true
		path := filepath.Join(dir, base+".html")
		if err := draw(p, r.opts, notes, strings.Join(said, "; "), path); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// Note is a finding to draw on a picture, over [Start, End].
type Note struct {
	Kind, Message string
	Start, End    int64
	// Tag is the row the note is drawn in (default "violations"): a
	// finding's own evidence, such as webhook deliveries, gets a row of its own.
	Tag string
}

// Picture draws one intent's partition of h to path, legal or not: rows
// named by process, charges by PSP key and amount, the fault windows aimed
// at that intent (or, when a fault names none, overlapping its ops), and
// the notes. It is the picture of a finding made by other ground truth than
// the checker's (a count at the PSP), so it says what porcupine found but
// does not decide.
func Picture(h history.History, intent string, faults []FaultWindow, notes []Note, caption, path string) error {
	var sub history.History
	for _, op := range h {
		if op.Intent == intent {
			sub = append(sub, op)
		}
	}
	sub, _ = history.WellFormed(sub)
	l := link(sub)
	parts := intentPartitions(sub, l, hasCharge(sub))
	if len(parts) == 0 {
		return fmt.Errorf("html: no op of intent %s to draw", intent)
	}
	var ann []porcupine.Annotation
	for _, n := range notes {
		a := violationNote(n.Kind, n.Message, n.Start, n.End)
		if n.Tag != "" {
			a.Tag, a.BackgroundColor = n.Tag, "#cfe3ff"
		}
		ann = append(ann, a)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return draw(parts[0], CheckOptions{Timeout: defaultTimeout, Faults: faults}, ann, caption, path)
}

func hasCharge(h history.History) bool {
	for _, op := range h {
		if op.Op == history.OpCharge {
			return true
		}
	}
	return false
}

func violationNote(kind, msg string, start, end int64) porcupine.Annotation {
	return porcupine.Annotation{Tag: "violations", Start: start, End: end, Description: kind, Details: msg, BackgroundColor: "#ffe08a"}
}

// draw runs porcupine over p and writes its picture with the faults that
// concern p, the notes, and rows named after p's processes.
func draw(p *partition, opts CheckOptions, notes []porcupine.Annotation, caption, path string) error {
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	res, info := porcupine.CheckOperationsVerbose(*p.model, p.ops, opts.Timeout)
	for _, f := range faultsOf(p, opts.Faults) {
		notes = append(notes, porcupine.Annotation{
			Tag: "faults", Start: f.Start, End: f.End, Description: f.Name,
			Details: fmt.Sprintf("fault %s [%d, %d]", f.Name, f.Start, f.End), BackgroundColor: "#f8d7da",
		})
	}
	notes = append(notes, porcupine.Annotation{
		Tag: "checker", Start: p.ops[0].Call, Description: string(res),
		Details: fmt.Sprintf("porcupine: %s for %s (%d ops)", res, p.Name, len(p.members)),
	})
	info.AddAnnotations(notes)
	var b bytes.Buffer
	if err := porcupine.Visualize(*p.model, info, &b); err != nil {
		return fmt.Errorf("html %s: %w", p.Name, err)
	}
	out, err := orderPicture(b.Bytes())
	if err == nil {
		out, err = nameRows(out, p.rows)
	}
	if err == nil && caption != "" {
		out, err = addCaption(out, caption)
	}
	if err != nil {
		return fmt.Errorf("html %s: %w", p.Name, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// faultsOf keeps the fault windows that concern p: those aimed at its
// intent, and those aimed at none that overlap its ops in time.
func faultsOf(p *partition, fs []FaultWindow) []FaultWindow {
	if len(p.ops) == 0 {
		return nil
	}
	lo, hi := p.ops[0].Call, p.ops[0].Call
	for _, o := range p.ops {
		lo = min(lo, o.Call)
		if o.Return != never {
			hi = max(hi, o.Return)
		}
		hi = max(hi, o.Call)
	}
	var out []FaultWindow
	for _, f := range fs {
		switch {
		case f.Intent != "":
			if f.Intent == p.Intent {
				out = append(out, f)
			}
		case f.Start <= hi && f.End >= lo:
			out = append(out, f)
		}
	}
	return out
}

// porcupine numbers a picture's rows by client id; these are the two
// places its script writes a row's label.
var rowLabels = []struct{ from, to string }{
	{"const tag = i < realClients ? i.toString() : sortedTags[i - realClients]",
		"const tag = i < realClients ? (idemcheckRows[i] ?? i.toString()) : sortedTags[i - realClients]"},
	{"text.textContent = i < realClients ? i : sortedTags[i - realClients]",
		"text.textContent = i < realClients ? (idemcheckRows[i] ?? i) : sortedTags[i - realClients]"},
}

// nameRows makes porcupine's page label each row with its process name. A
// porcupine whose script no longer has the two labels is an error, not a
// silently numbered picture.
func nameRows(page []byte, rows []string) ([]byte, error) {
	s := string(page)
	for _, l := range rowLabels {
		if strings.Count(s, l.from) != 1 {
			return nil, fmt.Errorf("porcupine's page changed: cannot name its rows (%q not found once)", l.from)
		}
		s = strings.Replace(s, l.from, l.to, 1)
	}
	js, err := jsonStrings(rows)
	if err != nil {
		return nil, err
	}
	const at = "<script>"
	if !strings.Contains(s, at) {
		return nil, fmt.Errorf("porcupine's page changed: no %s", at)
	}
	s = strings.Replace(s, at, at+"\nvar idemcheckRows = "+js+";\n", 1)
	return []byte(s), nil
}

// jsonStrings renders rows as a JavaScript array literal; encoding/json
// escapes <, > and &, so a process name cannot end the script.
func jsonStrings(rows []string) (string, error) {
	if rows == nil {
		rows = []string{}
	}
	b, err := json.Marshal(rows)
	return string(b), err
}

// pictured returns the partitions to draw: the illegal ones, then the
// partitions of intents and merchants other violations name.
func (r *Result) pictured() []*partition {
	seen := map[*partition]bool{}
	var ps []*partition
	add := func(p *partition) {
		if p != nil && !seen[p] && len(p.ops) > 0 {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	for _, p := range r.failed {
		add(p)
	}
	for _, v := range r.Violations {
		for _, p := range r.parts {
			if r.about(v, p) {
				add(p)
			}
		}
	}
	return ps
}

// about reports whether violation v is about partition p: named by it, or
// sharing an op with it.
func (r *Result) about(v Violation, p *partition) bool {
	if v.Partition != "" {
		return v.Partition == p.Name
	}
	if (v.Intent == "" || v.Intent != p.Intent) && (v.Merchant == "" || v.Merchant != p.Merchant) {
		return false
	}
	type id struct {
		process, op string
		call        int64
	}
	in := map[id]bool{}
	for _, i := range p.members {
		in[id{p.h[i].Process, p.h[i].Op, p.h[i].Call}] = true
	}
	for _, o := range v.Ops {
		if in[id{o.Process, o.Op, o.Call}] {
			return true
		}
	}
	return false
}

// fileName keeps a partition name safe and readable as a file name.
func fileName(name string) string {
	var b strings.Builder
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// addCaption puts the finding in words above porcupine's timeline, so the
// picture says what it shows before anyone hovers over it. It sits below
// porcupine's fixed legend (top 10px) and above its canvas (margin 45px).
func addCaption(page []byte, caption string) ([]byte, error) {
	s := string(page)
	const body = "<body>"
	if strings.Count(s, body) != 1 {
		return nil, fmt.Errorf("porcupine's page changed: cannot caption it (%q not found once)", body)
	}
	p := `<p id="idemcheck-caption" style="font: 15px sans-serif; margin: 45px 12px -30px 12px; padding: 6px 10px; background: #ffe08a">` +
		html.EscapeString(caption) + `</p>`
	return []byte(strings.Replace(s, body, body+p, 1)), nil
}
