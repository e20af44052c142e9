package timeline

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
)

// storySecond renders a story time: two decimals under a minute, whole
// seconds after (7200 s reads as 7200, not 7200.00).
func storySecond(s float64) string {
	if s < 60 {
		return strconv.FormatFloat(s, 'f', 2, 64)
	}
	return strconv.FormatFloat(s, 'f', 0, 64)
}

func (t *Timeline) heading() string {
	return fmt.Sprintf("%s (seed %d; one story second = %v)", t.Title, t.Seed, t.Scale)
}

// WriteText writes the timeline as aligned columns, then the repeats and the
// end state.
func (t *Timeline) WriteText(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString(t.heading() + "\n")
	for _, n := range t.Notes() {
		b.WriteString(oneLine(n) + "\n")
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "story s\ttier\tevent\trepeated\tabsorbed by")
	for _, e := range t.Entries() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", storySecond(e.At), oneLine(e.Tier), oneLine(e.Event), dash(e.Repeated), dash(e.Absorbed))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rs := t.Repeats(); len(rs) > 0 {
		fmt.Fprintf(&b, "\nEvery repeat (%d) and what absorbed it:\n", len(rs))
		for _, e := range rs {
			fmt.Fprintf(&b, "  %s s  %s: %s -> %s\n", storySecond(e.At), e.Tier, oneLine(e.Repeated), oneLine(e.Absorbed))
		}
	}
	if fs := t.Facts(); len(fs) > 0 {
		b.WriteString("\nEnd state:\n")
		for _, f := range fs {
			mark := "ok "
			if !f.OK {
				mark = "BAD"
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", mark, f.Name, oneLine(f.Value))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return oneLine(s)
}

// oneLine keeps a column one line high whatever a caller put in it.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Text is WriteText into a string.
func (t *Timeline) Text() string {
	var b strings.Builder
	_ = t.WriteText(&b)
	return b.String()
}

type page struct {
	Heading string
	Notes   []string
	Entries []row
	Repeats []row
	Facts   []Fact
	AllOK   bool
	Tiers   int
}

type row struct {
	At, Tier, Event, Repeated, Absorbed string
	Repeat                              bool
}

func rows(es []Entry) []row {
	out := make([]row, len(es))
	for i, e := range es {
		out[i] = row{storySecond(e.At), e.Tier, e.Event, e.Repeated, e.Absorbed, e.Repeat()}
	}
	return out
}

// WriteHTML writes one page with no outside resources: the end state first,
// then every repeat with its guard, then the whole timeline.
func (t *Timeline) WriteHTML(w io.Writer) error {
	es := t.Entries()
	tiers := map[string]bool{}
	for _, e := range es {
		tiers[e.Tier] = true
	}
	p := page{Heading: t.heading(), Notes: t.Notes(), Entries: rows(es), Repeats: rows(t.Repeats()), Facts: t.Facts(), AllOK: true, Tiers: len(tiers)}
	for _, f := range p.Facts {
		p.AllOK = p.AllOK && f.OK
	}
	return pageTmpl.Execute(w, p)
}

// Save writes timeline.txt and timeline.html into dir (made if absent) and
// returns their paths.
func (t *Timeline) Save(dir string) (text, html string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	text, html = filepath.Join(dir, "timeline.txt"), filepath.Join(dir, "timeline.html")
	var tb, hb bytes.Buffer
	if err := t.WriteText(&tb); err != nil {
		return "", "", err
	}
	if err := t.WriteHTML(&hb); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(text, tb.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(html, hb.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	return text, html, nil
}

var pageTmpl = template.Must(template.New("timeline").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Heading}}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.35em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #ddd;vertical-align:top}
th{background:#f3f3f3}td.at{font-variant-numeric:tabular-nums;text-align:right;white-space:nowrap}
td.tier{white-space:nowrap;color:#555}tr.repeat td{background:#fff6e0}
.ok{color:#176b2c}.bad{color:#b00020;font-weight:bold}.verdict{padding:.5em .8em;border-radius:4px;display:inline-block}
.verdict.ok{background:#e3f4e6}.verdict.bad{background:#fde7ea}
</style></head><body>
<h1>{{.Heading}}</h1>
{{range .Notes}}<p>{{.}}</p>
{{end}}{{if .Facts}}<p class="verdict {{if .AllOK}}ok{{else}}bad{{end}}">{{if .AllOK}}Every line of the end state is as this run requires.{{else}}Some lines of the end state are wrong (marked below).{{end}}</p>
<h2>End state</h2>
<table><tr><th>what</th><th>found</th><th></th></tr>
{{range .Facts}}<tr><td>{{.Name}}</td><td>{{.Value}}</td><td class="{{if .OK}}ok{{else}}bad{{end}}">{{if .OK}}as required{{else}}WRONG{{end}}</td></tr>
{{end}}</table>{{end}}
<h2>Every repeat and what absorbed it ({{len .Repeats}})</h2>
{{if .Repeats}}<table><tr><th>story s</th><th>tier</th><th>repeated</th><th>absorbed by</th></tr>
{{range .Repeats}}<tr><td class="at">{{.At}}</td><td class="tier">{{.Tier}}</td><td>{{.Repeated}}</td><td>{{.Absorbed}}</td></tr>
{{end}}</table>{{else}}<p>No repeat was recorded.</p>{{end}}
<h2>The whole timeline ({{len .Entries}} events, {{.Tiers}} tiers)</h2>
<table><tr><th>story s</th><th>tier</th><th>event</th><th>repeated</th><th>absorbed by</th></tr>
{{range .Entries}}<tr{{if .Repeat}} class="repeat"{{end}}><td class="at">{{.At}}</td><td class="tier">{{.Tier}}</td><td>{{.Event}}</td><td>{{.Repeated}}</td><td>{{.Absorbed}}</td></tr>
{{end}}</table>
</body></html>
`))
