package bench

import (
	"os"
	"path/filepath"
)

// sectionDir makes the report directory of one section under --out and
// opens its run.log there; the caller closes the log.
func (r *runner) sectionDir(name string) (string, *os.File, error) {
	dir := filepath.Join(r.o.Out, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	lf, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		return "", nil, err
	}
	return dir, lf, nil
}

// firstSeed is --seed, or 1: the campaign and shrink sections replay the
// same seeds unless told otherwise.
func (r *runner) firstSeed() uint64 {
	if r.o.Seed == 0 {
		return 1
	}
	return r.o.Seed
}
