package campaign

import (
	"html/template"
	"os"
	"path/filepath"
	"time"
)

var page = template.Must(template.New("campaign").Funcs(template.FuncMap{"seeds": seedList, "first": firstLine, "ms": func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>idemcheck campaign</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#1b1b1b}
h1{font-size:1.5em}.pass{color:#11652b}.fail{color:#a8071a}
table{border-collapse:collapse;width:100%;margin:1em 0}th,td{border:1px solid #ccc;padding:.35em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{font-size:.9em;background:#f6f6f6;padding:0 .2em}
</style></head><body>
<h1 class="{{if .ExitCode}}fail{{else}}pass{{end}}">{{if not .Seeds}}INCONCLUSIVE: no run was read{{else if .ExitCode}}FAIL{{else}}PASS{{end}}: {{len .Findings}} distinct finding(s) in {{.FailedRuns}} of {{.Seeds}} seed(s)</h1>
<p>{{len .Passed}} seed(s) passed{{if .Passed}}: {{seeds .Passed}}{{end}}.{{if .Unjudged}} {{len .Unjudged}} failed without a finding (inconclusive or error), listed below.{{end}}</p>
{{if .Findings}}<h2>Findings</h2>
<table><tr><th>check</th><th>kind</th><th>what preceded it (seeds)</th><th>seeds</th><th>first detected</th><th>replay</th></tr>
{{range .Findings}}<tr><td>{{.Check}}</td><td><b>{{.Kind}}</b> ({{.Level}})</td><td>{{range .Mechanisms}}{{.Mechanism}}: {{seeds .Seeds}}<br>{{end}}<small>{{first .Message}}</small></td><td>{{len .Seeds}} seed(s): {{seeds .Seeds}}</td><td>{{if not .First.IsZero}}{{.First.Format "2006-01-02 15:04:05"}} UTC, {{ms .After}} into seed {{.FirstSeed}}{{end}}</td><td><code>{{.Replay}}</code></td></tr>
{{end}}</table>{{end}}
{{if .Unjudged}}<h2>Failed without a finding</h2><table><tr><th>seed</th><th>check</th><th>why</th></tr>
{{range $u := .Unjudged}}{{range .Checks}}<tr><td>{{$u.Seed}}</td><td>{{.Check}} ({{.Verdict}})</td><td>{{.Why}}</td></tr>{{end}}{{end}}</table>{{end}}
{{if .Replayed}}<p class="fail">Seeds run more than once with different results: {{seeds .Replayed}}.</p>{{end}}
{{with .Coverage}}<h2>Chaos coverage, summed over seeds: {{.Covered}} of {{.Allowed}} cells</h2>
<table><tr><th>dimension</th><th>exercised</th><th>never drawn</th></tr>
{{range .Dimensions}}<tr><td>{{.Name}}</td><td>{{range $v, $n := .Exercised}}{{if $n}}{{$v}} ×{{$n}} {{end}}{{end}}</td><td>{{range .Missing}}{{.}} {{end}}</td></tr>{{end}}</table>{{end}}
<h2>Runs</h2><table><tr><th>seed</th><th>exit</th><th>report</th></tr>
{{range .Runs}}<tr><td>{{.Seed}}</td><td>{{.Exit}}</td><td>{{.Source}}</td></tr>{{end}}</table>
</body></html>
`))

// WriteHTML writes dir/index.html and returns its path.
func WriteHTML(dir string, c *Campaign) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "index.html")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	if err := page.Execute(f, c); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}
