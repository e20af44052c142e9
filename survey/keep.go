package survey

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
)

// Keep writes a compressed copy of every run's JSON report of t (read from
// work, the survey's reports folder) into dir as <target>-<seed>.json.gz,
// with the survey's record, so the table can be written again from the
// repository (--from dir) after the temporary reports are gone. A run with
// no report keeps nothing; a kept report of the same target and seed is
// replaced.
func Keep(dir string, t *Table, work string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range t.Rows {
		for _, run := range r.Runs {
			if run.Summary == nil {
				continue
			}
			name := fmt.Sprintf("%s-%d.json", run.Target, run.Seed)
			b, err := os.ReadFile(filepath.Join(work, name))
			if err != nil {
				return err
			}
			var z bytes.Buffer
			w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
			if _, err := w.Write(b); err != nil {
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			_ = os.Remove(filepath.Join(dir, name)) // a plain copy would shadow the new one
			if err := os.WriteFile(filepath.Join(dir, name+".gz"), z.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return WriteMeta(dir, t)
}
