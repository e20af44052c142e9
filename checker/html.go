package checker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
		res, info := porcupine.CheckOperationsVerbose(p.model, p.ops, r.opts.Timeout)
		var notes []porcupine.Annotation
		for _, f := range r.opts.Faults {
			notes = append(notes, porcupine.Annotation{
				Tag: "faults", Start: f.Start, End: f.End, Description: f.Name,
				Details: fmt.Sprintf("fault %s [%d, %d]", f.Name, f.Start, f.End), BackgroundColor: "#f8d7da",
			})
		}
		for _, v := range r.Violations {
			if !r.about(v, p) || len(v.Ops) == 0 {
				continue
			}
			notes = append(notes, porcupine.Annotation{
				Tag: "violations", Start: v.Ops[0].Call, End: v.Ops[len(v.Ops)-1].Call,
				Description: v.Kind, Details: v.Message, BackgroundColor: "#ffe08a",
			})
		}
		notes = append(notes, porcupine.Annotation{
			Tag: "checker", Start: p.ops[0].Call, Description: string(res),
			Details: fmt.Sprintf("porcupine: %s for %s (%d ops)", res, p.Name, len(p.members)),
		})
		info.AddAnnotations(notes)
		base := fileName(p.Name)
		for n := 2; used[base]; n++ {
			base = fmt.Sprintf("%s-%d", fileName(p.Name), n)
		}
		used[base] = true
		path := filepath.Join(dir, base+".html")
		if err := porcupine.VisualizePath(p.model, info, path); err != nil {
			return paths, fmt.Errorf("html %s: %w", p.Name, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
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
		in[id{r.h[i].Process, r.h[i].Op, r.h[i].Call}] = true
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
