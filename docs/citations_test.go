package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCodeCitesDocumentsInTheRepository: a comment that sends the reader
// to a document names one this repository holds, at an anchor it has; it
// never cites a file or a chapter the reader does not have.
func TestCodeCitesDocumentsInTheRepository(t *testing.T) {
	cite := regexp.MustCompile(`docs/([A-Z]+\.md)#([A-Za-z0-9-]+)`)
	elsewhere := regexp.MustCompile(`\bPart [0-9]+\b|[^/]PITFALLS\b`)
	docAnchors := map[string]map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Base(path) == "citations_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := elsewhere.FindString(line); m != "" && !strings.Contains(line, "docs/PITFALLS.md") {
				t.Errorf("%s:%d: cites %q, which is not in the repository: %s", path, i+1, strings.TrimSpace(m), strings.TrimSpace(line))
			}
			for _, m := range cite.FindAllStringSubmatch(line, -1) {
				if docAnchors[m[1]] == nil {
					docAnchors[m[1]] = anchors(read(t, m[1]))
				}
				if !docAnchors[m[1]][m[2]] {
					t.Errorf("%s:%d: docs/%s has no anchor %q", path, i+1, m[1], m[2])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
