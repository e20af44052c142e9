package report

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

type htmlFinding struct {
	scenario.Finding
	N        int
	Attempts []*driver.Attempt
	// Picture is the finding's porcupine picture, or NoPicture says why not.
	Picture, NoPicture string
}

type htmlResult struct {
	scenario.Result
	Gating      bool
	HistoryFile string
	Replay      string
	Items       []htmlFinding
}

// htmlLine is one line of the page's opening list: one per violation (any
// finding of a result that fails the run), or the why of a failing result
// that has no finding (an error, an inconclusive check).
type htmlLine struct {
	ID, Anchor, Level, Kind, Message, Replay string
}

// WriteHTML writes DIR/index.html: one line per violation first, with the
// command that replays its check, then the table of checks, then every
// finding with its porcupine picture (DIR/<check>/<n>-<kind>.html, in the
// check's finding order, so the headline finding's comes first), its
// evidence (idemcheck's internal headers left out) and the PSP's record.
// It returns the index path.
func WriteHTML(dir string, r *Report) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var rows []htmlResult
	var lines []htmlLine
	for _, res := range r.Results {
		hr := htmlResult{Result: res, Gating: r.Fails(res)}
		if hr.Gating {
			hr.Replay = r.Replay(res.ID)
		}
		if len(res.History) > 0 {
			// The history as checked, for `idemcheck check` offline.
			rel := filepath.Join("history", safeName(res.ID)+".jsonl")
			if err := writeHistory(filepath.Join(dir, rel), res.History); err != nil {
				return "", err
			}
			hr.HistoryFile = rel
		}
		for i, f := range res.Findings {
			hf := htmlFinding{Finding: f, N: i + 1}
			for _, a := range res.Attempts {
				for _, s := range f.Seqs {
					if a.Seq == s {
						hf.Attempts = append(hf.Attempts, clean(a))
					}
				}
			}
			hf.Picture, hf.NoPicture = picture(dir, res, i+1, f, hf.Attempts)
			hr.Items = append(hr.Items, hf)
			if hr.Gating {
				lines = append(lines, htmlLine{ID: res.ID, Anchor: fmt.Sprintf("%s-%d", res.ID, i+1), Level: string(f.Level), Kind: f.Kind, Message: oneLine(f.Message, 240), Replay: hr.Replay})
			}
		}
		if hr.Gating && len(res.Findings) == 0 {
			lines = append(lines, htmlLine{ID: res.ID, Anchor: res.ID, Level: string(res.Level), Kind: string(res.Verdict), Message: oneLine(res.Why, 240), Replay: hr.Replay})
		}
		rows = append(rows, hr)
	}
	path := filepath.Join(dir, "index.html")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	counts := map[string]int{}
	for k, v := range r.Counts() {
		counts[string(k)] = v
	}
	err = page.Execute(f, map[string]any{"R": r, "Rows": rows, "Lines": lines, "Counts": counts, "Exit": r.Exit(), "Cov": r.Coverage()})
	if err != nil {
		return "", err
	}
	return path, f.Close()
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

func chargeID(c history.Op) string {
	switch {
	case c.Output != nil && c.Output.ChargeID != "":
		return c.Output.ChargeID
	case c.Input.ChargeID != "":
		return c.Input.ChargeID // a refund names the charge it gives back
	}
	return "(unknown)"
}

func amount(c history.Op) int64 {
	if c.Input.Amount != nil {
		return *c.Input.Amount
	}
	return 0
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"chargeID": chargeID, "amount": amount, "rule": ruleHTML, "doc": CheckDoc,
	"upper": func(v scenario.Verdict) string { return strings.ToUpper(string(v)) },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>idemcheck run</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top;font-size:13px}
.pass{background:#e6f4ea}.violation{background:#f8d7da}.deviation{background:#fff3cd}.error{background:#f5c2c7}.inconclusive{background:#f5c2c7}.na{color:#777}
pre{white-space:pre-wrap;word-break:break-all;margin:0;font-size:12px}
.side{display:grid;grid-template-columns:1fr 1fr;gap:1em}
</style></head><body>
<h1 id="headline">idemcheck run: {{.Cov.Headline}}</h1>
{{if .Lines}}<ol id="violations">{{range .Lines}}<li><a href="#{{.Anchor}}">{{.ID}}</a> [{{.Level}}] <b>{{.Kind}}</b>: {{.Message}}{{if .Replay}}<br>replay: <code>{{.Replay}}</code>{{end}}</li>
{{end}}</ol>{{end}}
<p>config {{.R.Config}} · targets {{range .R.Targets}}{{.}} {{end}}· profile {{.R.Profile}} · seed {{.R.Seed}} · strict {{.R.Strict}} · {{.R.Started.Format "2006-01-02 15:04:05Z07:00"}}</p>
<p>safety violations {{index .Counts "violation"}} · protocol deviations {{index .Counts "deviation"}} · pass {{index .Counts "pass"}} · n/a {{index .Counts "n/a"}} · inconclusive {{index .Counts "inconclusive"}} · errors {{index .Counts "error"}}</p>
{{if .R.Probe}}<p><b>probe:</b> {{.R.Probe}}</p>{{end}}
{{with .Cov.NotRun}}<p><b>safety checks not run against this target</b>, by the config change that would run them:</p><ul id="not-run">{{range .}}<li><b>{{len .Checks}}</b>: {{.Change}} ({{range $i, $c := .Checks}}{{if $i}}, {{end}}<a href="{{doc $c}}">{{$c}}</a>{{end}}){{if .Doc}} · <a href="{{.Doc}}">docs/CONFIG.md</a>{{end}}</li>
{{end}}</ul>{{end}}
{{if .R.TargetLogs}}<p>target output: {{range .R.TargetLogs}}<code>{{.}}</code> {{end}}</p>{{end}}
<table><tr><th>check</th><th>level</th><th>verdict</th><th>rule</th><th>why</th></tr>
{{range .Rows}}<tr class="{{if eq .Verdict "n/a"}}na{{else}}{{.Verdict}}{{end}}"><td>{{if .Items}}<a href="#{{.ID}}">{{.ID}}</a>{{else}}<a href="{{doc .ID}}">{{.ID}}</a>{{end}} {{.Title}}</td><td>{{.Level}}</td><td>{{upper .Verdict}}{{if and (eq .Verdict "deviation") (not .Gating)}} (not gating){{end}}</td><td>{{rule .ID .Rule}}</td><td>{{.Why}}</td></tr>
{{end}}</table>
{{if .R.Schedule}}<h2>chaos schedule (seed {{.R.Seed}})</h2><pre>{{range .R.Schedule}}{{.}}
{{end}}</pre>{{end}}
{{range .Rows}}{{if .Items}}
<h2 id="{{.ID}}">{{.ID}}: {{.Title}} — {{upper .Verdict}}</h2>
<p>rule: {{rule .ID .Rule}}{{if .Replay}} · replay: <code>{{.Replay}}</code>{{end}}</p>
{{if .HistoryFile}}<p>history (HISTORY.md JSONL, re-check with <code>idemcheck check</code>): <a href="{{.HistoryFile}}">{{.HistoryFile}}</a></p>{{end}}
{{$id := .ID}}{{range .Items}}
<h3 id="{{$id}}-{{.N}}">{{.N}}. [{{.Level}}] {{.Kind}}</h3><p>{{.Message}}<br>rule: {{rule $id .Rule}}{{if .Intent}} · intent {{.Intent}}{{end}}</p>
<p>{{if .Picture}}porcupine picture: <a href="{{.Picture}}">{{.Picture}}</a>{{else}}{{.NoPicture}}{{end}}</p>
<div class="side"><div><h4>what the client was told</h4>
{{range .Attempts}}<p><b>#{{.Seq}}</b> {{.Step}}</p><pre>{{.Method}} {{.URL}}
{{range $k, $v := .ReqHeaders}}{{$k}}: {{$v}}
{{end}}
{{.ReqBody}}</pre><pre>{{if .Err}}no answer: {{.Err}}{{else}}→ {{.Status}} ({{.Outcome}}{{if .PaymentID}}, {{.PaymentID}}{{end}})
{{range $k, $v := .RespHeaders}}{{$k}}: {{$v}}
{{end}}
{{.RespBody}}{{end}}</pre>{{end}}
</div><div><h4>PSP ground truth</h4>
{{if .Charges}}<table><tr><th>op</th><th>charge</th><th>PSP key</th><th>amount</th></tr>{{range .Charges}}<tr><td>{{.Op}}</td><td>{{chargeID .}}</td><td>{{.Input.PSPKey}}</td><td>{{amount .}}</td></tr>{{end}}</table>{{else}}<p>no PSP charges attached to this finding</p>{{end}}
</div></div>
{{end}}{{end}}{{end}}
</body></html>
`))

func writeHistory(path string, h history.History) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := history.WriteJSONL(f, h); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
