package broker

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// StaleAfter is how old a run's queue must be before a later run sweeps
// it: far longer than any bounded run lasts, so a run still under way on
// the same broker is never touched.
const StaleAfter = time.Hour

// runNameRE is the {{run}} part of a queue run's names (conform's startQueue).
const runNameRE = `(q-\d+-[0-9a-f]{8}-t(\d+))`

// StaleRun says whether name is one a run of this config (its name
// template tmpl) made more than StaleAfter before now, and returns that
// run's name: what a broker's Open sweeps when a SIGKILLed run left it.
func StaleRun(name, tmpl string, now time.Time) (string, bool) {
	i := strings.Index(tmpl, "{{run}}")
	if i < 0 {
		return "", false
	}
	re := regexp.MustCompile("^" + regexp.QuoteMeta(tmpl[:i]) + runNameRE + regexp.QuoteMeta(tmpl[i+len("{{run}}"):]) + "$")
	m := re.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	sec, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)) < StaleAfter {
		return "", false
	}
	return m[1], true
}
