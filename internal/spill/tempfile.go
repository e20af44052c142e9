package spill

import (
	"errors"
	"os"
)

// tempFile is a file under os.TempDir unlinked as soon as it is made where
// the system allows (it lives on while open), so that nothing is left
// behind even when the process is killed.
type tempFile struct {
	f        *os.File
	path     string
	unlinked bool
}

func createTemp(pattern string) (tempFile, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return tempFile{}, err
	}
	t := tempFile{f: f, path: f.Name()}
	t.unlinked = os.Remove(t.path) == nil
	return t, nil
}

// discard closes the file and removes it where it could not be unlinked.
func (t tempFile) discard() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	if !t.unlinked {
		if rerr := os.Remove(t.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}
