package survey

import (
	"os"
	"path/filepath"
	"regexp"
)

// KindDocs maps each finding kind to the section documenting it, relative
// to docs/: the run's own kinds are in SCENARIOS.md's kinds table, the
// checker's in HISTORY.md.
func KindDocs(docs string) (map[string]string, error) {
	out := map[string]string{}
	h, err := os.ReadFile(filepath.Join(docs, "HISTORY.md"))
	if err != nil {
		return nil, err
	}
	for _, m := range regexp.MustCompile("(?m)^### `([a-z-]+)`$").FindAllSubmatch(h, -1) {
		out[string(m[1])] = "HISTORY.md#" + string(m[1])
	}
	s, err := os.ReadFile(filepath.Join(docs, "SCENARIOS.md"))
	if err != nil {
		return nil, err
	}
	for _, m := range regexp.MustCompile(`id="kind-([a-z-]+)"`).FindAllSubmatch(s, -1) {
		out[string(m[1])] = "SCENARIOS.md#kind-" + string(m[1])
	}
	return out, nil
}
