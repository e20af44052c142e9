// Package logtail reads the end of a process's log file, for the error that
// says why the process failed: the one log tail of the harness.
package logtail

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// window is the most of a file's end Lines reads: enough for any useful
// number of lines, bounded so a long log costs nothing.
const window = 64 << 10

// Lines is the last n lines of the file at path, without a trailing newline;
// when the file cannot be read it says why, so the error that quotes it
// still names the log.
func Lines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(log %s: %v)", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(log %s: %v)", path, err)
	}
	off := max(st.Size()-window, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return fmt.Sprintf("(log %s: %v)", path, err)
	}
	text := string(b)
	if i := strings.IndexByte(text, '\n'); off > 0 && i >= 0 {
		text = text[i+1:] // the first line is cut by the window
	}
	return Of(text, n)
}

// Of is the last n lines of text (a command's output, say), without a
// trailing newline.
func Of(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Indented is Lines with each line indented by prefix and a final newline,
// for a block quoted under a heading.
func Indented(path string, n int, prefix string) string {
	return prefix + strings.ReplaceAll(Lines(path, n), "\n", "\n"+prefix) + "\n"
}
