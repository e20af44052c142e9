package survey

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	bareURL = regexp.MustCompile("https?://[^\\s)>\\]\"'`]+")
	mdID    = regexp.MustCompile(`id="([^"]+)"`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// allowedHosts are the addresses a finding may link: each implementation's
// own repository (about.yaml's repo) and the hosts of its docs and source.
// The project's own files are linked relatively, never by an address.
func allowedHosts(t *testing.T) (prefixes, hosts []string) {
	t.Helper()
	all := allTargets(t)
	for _, a := range all {
		if a.Repo != "" {
			prefixes = append(prefixes, a.Repo+"/", a.Repo+")")
		}
		for _, u := range []string{a.Docs, a.Source} {
			if p, err := url.Parse(u); err == nil && p.Host != "" && p.Host != "github.com" {
				hosts = append(hosts, p.Host)
			}
		}
	}
	return prefixes, hosts
}

func checkLinks(t *testing.T, path, md string) {
	t.Helper()
	prefixes, hosts := allowedHosts(t)
	for _, e := range linkErrors(path, md, prefixes, hosts) {
		t.Error(e)
	}
}

// linkErrors names every link of a Markdown file (at path, its text md)
// that leaves the repository for an address no finding cites, or points at
// a file or anchor of the repository that does not exist.
func linkErrors(path, md string, prefixes, hosts []string) []string {
	var errs []string
	errorf := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for _, m := range bareURL.FindAllString(md, -1) {
		u, err := url.Parse(m)
		if err != nil {
			errorf("%s: %q is not a URL", path, m)
			continue
		}
		h := u.Hostname()
		if h == "127.0.0.1" || h == "localhost" {
			continue // a reproduction's own servers
		}
		ok := false
		for _, p := range prefixes {
			ok = ok || strings.HasPrefix(m+")", p)
		}
		for _, x := range hosts {
			ok = ok || h == x
		}
		if !ok {
			errorf("%s: %s is neither relative nor an address a finding cites (an implementation's repository, docs or source host)", path, m)
		}
	}
	for _, m := range mdLink.FindAllStringSubmatch(md, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue // judged above
		}
		file, anchor, _ := strings.Cut(target, "#")
		resolved := path
		if file != "" {
			resolved = filepath.Join(filepath.Dir(path), file)
		}
		b, err := os.ReadFile(resolved)
		if err != nil {
			if _, serr := os.Stat(resolved); serr == nil {
				continue // a folder
			}
			errorf("%s: link %s: %v", path, target, err)
			continue
		}
		if anchor != "" && strings.HasSuffix(resolved, ".md") && !hasAnchor(string(b), anchor) {
			errorf("%s: link %s: no anchor %q in %s", path, target, anchor, resolved)
		}
	}
	return errs
}

// hasAnchor: an explicit id, or a heading whose GitHub slug is the anchor.
func hasAnchor(md, anchor string) bool {
	for _, m := range mdID.FindAllStringSubmatch(md, -1) {
		if m[1] == anchor {
			return true
		}
	}
	for _, m := range heading.FindAllStringSubmatch(md, -1) {
		if slug(m[1]) == anchor {
			return true
		}
	}
	return false
}

func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// TestLinksAreRelativeOrCited: every link of docs/SURVEY.md, of a table
// written from the recorded runs, and of every report draft is a file of
// this repository (relative, and it exists, anchors included) or an address
// a finding cites: no link to an address that does not exist.
func TestLinksAreRelativeOrCited(t *testing.T) {
	b, err := os.ReadFile("../docs/SURVEY.md")
	if err != nil {
		t.Fatal(err)
	}
	checkLinks(t, "../docs/SURVEY.md", string(b))
	tb := &Table{Date: "2026-12-06", Version: "v-test", Command: "ci/survey --runs 2", KindDocs: kindDocs(t), Root: "..", Rows: []Row{
		recorded(t, "django-idempotency-key", "django-idempotency-key-1.json.gz", "django-idempotency-key-2.json.gz"),
		recorded(t, "axum-idempotent", "axum-idempotent-1.json.gz", "axum-idempotent-2.json.gz"),
	}}
	md, problems := tb.Markdown()
	if len(problems) > 0 {
		t.Errorf("problems of the recorded runs' table: %q", problems)
	}
	checkLinks(t, "../docs/SURVEY.md", md)
	drafts, err := filepath.Glob("reports/*.md")
	if err != nil || len(drafts) < 10 {
		t.Fatalf("report drafts %v: %v", drafts, err)
	}
	for _, d := range drafts {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		checkLinks(t, d, string(b))
	}
}

// TestLinkCheckCatches: the check itself fails on an invented address, a
// missing file and a missing anchor, and passes a cited host and a file
// that exists.
func TestLinkCheckCatches(t *testing.T) {
	prefixes, hosts := allowedHosts(t)
	for _, bad := range []string{
		"[x](https://github.com/idemcheck/idemcheck/blob/main/README.md)",
		"[x](../survey/no-such-file.md)",
		"[x](SCENARIOS.md#no-such-anchor)",
	} {
		if errs := linkErrors("../docs/SURVEY.md", bad, prefixes, hosts); len(errs) != 1 {
			t.Errorf("%s: %q, want one error", bad, errs)
		}
	}
	good := "[x](https://github.com/snok/asgi-idempotency-header/issues/16) [y](SCENARIOS.md#run-A2) [z](../survey/CONTRACT.md)"
	if errs := linkErrors("../docs/SURVEY.md", good, prefixes, hosts); len(errs) != 0 {
		t.Errorf("%s: %q", good, errs)
	}
}
