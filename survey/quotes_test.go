package survey

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// norm joins a text's words with single spaces and drops the comment
// markers a README's code block puts before them.
func norm(s string) string {
	s = regexp.MustCompile(`(?m)^\s*#\s?`).ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), " ")
}

// quoted: every part of a quote ("[...]" marks a cut) is in the source.
func quoted(quote, source string) bool {
	for _, part := range strings.Split(norm(quote), "[...]") {
		if !strings.Contains(source, strings.TrimSpace(part)) {
			return false
		}
	}
	return true
}

// TestRuleQuotesAreExact: every rule a finding quotes is, word for word, in
// the docs/ file it links.
func TestRuleQuotesAreExact(t *testing.T) {
	all := allTargets(t)
	for _, a := range all {
		ex, err := LoadFindings(a.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ex {
			if e.Rule == nil {
				continue
			}
			file, _, _ := strings.Cut(e.Rule.Link, "#")
			b, err := os.ReadFile(filepath.Join("..", "docs", file))
			if err != nil {
				t.Errorf("%s %s: rule link %s: %v", a.Name, e.Check, e.Rule.Link, err)
				continue
			}
			if !quoted(e.Rule.Text, norm(string(b))) {
				t.Errorf("%s %s: the rule %q is not in docs/%s", a.Name, e.Check, e.Rule.Text, file)
			}
		}
	}
}

// installedDocs are, per target, the files of its pinned version its docs
// quotes come from, as its setup installs them into SURVEY_HOME.
var installedDocs = map[string][]string{
	"asgi-idempotency-header": {"venv/lib/python3.*/site-packages/asgi_idempotency_header-0.2.0.dist-info/METADATA"},
	"django-idempotency-key":  {"venv/lib/python3.*/site-packages/django_idempotency_key-1.3.0.dist-info/METADATA"},
	"express-idempotency":     {"node_modules/express-idempotency/README.md"},
	"idemkit":                 {"venv/lib/python3.*/site-packages/idemkit-1.0.2.dist-info/METADATA"},
	"node-idempotency-nestjs": {"node_modules/@node-idempotency/*/Readme.md"},
	"axum-idempotent":         {"cargo/registry/src/*/axum-idempotent-0.6.0/README.md"},
	"aws-lambda-powertools": {"venv/lib/python3.*/site-packages/aws_lambda_powertools/utilities/idempotency/*.py",
		"venv/lib/python3.*/site-packages/aws_lambda_powertools/utilities/idempotency/persistence/*.py"},
}

// TestDocsQuotesAreExact: every quote of an implementation's documentation
// is, word for word, in the pinned version as its setup installed it (a
// target not set up on this machine is skipped, and said so).
func TestDocsQuotesAreExact(t *testing.T) {
	home := os.Getenv("IDEMCHECK_SURVEY_CACHE")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			t.Skip(err)
		}
		home = filepath.Join(h, ".cache", "idemcheck", "survey")
	}
	all := allTargets(t)
	for _, a := range all {
		var text strings.Builder
		for _, g := range installedDocs[a.Name] {
			files, _ := filepath.Glob(filepath.Join(home, a.Name, g))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err == nil {
					text.WriteString(norm(string(b)) + " ")
				}
			}
		}
		if a.Name == "control-handler" {
			b, err := os.ReadFile(filepath.Join(a.Dir, "app.py"))
			if err != nil {
				t.Fatal(err)
			}
			text.WriteString(norm(string(b)))
		}
		ex, err := LoadFindings(a.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ex {
			if e.Docs == nil {
				continue
			}
			if text.Len() == 0 {
				t.Logf("%s: not set up under %s, its quotes not checked", a.Name, home)
				break
			}
			if !quoted(e.Docs.Text, text.String()) {
				t.Errorf("%s %s: %q is not in the installed pinned version", a.Name, e.Check, e.Docs.Text)
			}
		}
	}
}
