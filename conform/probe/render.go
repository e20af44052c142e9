package probe

import (
	"fmt"
	"github.com/idemcheck/idemcheck/fakepsp"
	"strings"
	"time"
)

// comment makes a one-line YAML comment of any text.
func comment(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func ints(ss []int) string {
	p := make([]string, len(ss))
	for i, s := range ss {
		p[i] = fmt.Sprint(s)
	}
	return "[" + strings.Join(p, ", ") + "]"
}

// render writes the config text: every value the probe decided, with what
// it saw beside it.
func render(o *Options, s *seen) string {
	inf := infer(s)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cmd := ""
	if len(o.Command) > 0 {
		cmd = " -- " + strings.Join(o.Command, " ")
	}
	w("# idemcheck run config written by `idemcheck init --probe %s%s` on %s.\n", o.URL, cmd, time.Now().UTC().Format(time.RFC3339))
	w("# Every value below is what the service answered to the probe; the comments say what was seen.\n")
	w("# Fields: docs/CONFIG.md. Check it, then: idemcheck run --config THIS_FILE\n\n")
	w("target:\n")
	if len(o.Command) > 0 {
		w("  base_urls: [%s]\n", q(strings.ReplaceAll(o.URL, "${PORT}", "${PORT_0}")))
		parts := make([]string, len(o.Command))
		for i, a := range o.Command {
			parts[i] = q(a)
		}
		w("  command: [%s]   # idemcheck starts it: $PORT, $PSP_URL, $PSP_KEY, $STATE_DIR\n", strings.Join(parts, ", "))
		w("  start_timeout: %s\n", o.StartTimeout)
	} else {
		w("  base_urls: [%s]   # a running service: the process checks (A3, A4, S-restart) are n/a\n", q(o.URL))
	}
	if o.Ready != "/" {
		w("  ready: %s\n", q(o.Ready))
	}
	w("\n")
	b.WriteString(strings.Replace(createYAML(o, s.key), "  key: "+s.key.yaml()+"\n",
		"  key: "+s.key.yaml()+"   # "+comment(s.keyNote)+"\n", 1))
	w("\ncallers:\n%s", callersYAML(o))
	if len(o.Callers) < 2 {
		w("# A6 (one key from two callers) needs a second caller: add one with its own credentials.\n")
	}
	w("\n# What the answers mean (first matching rule wins; an answer no rule matches is an error).\n")
	for _, n := range inf.notes {
		w("# seen: %s\n", comment(n))
	}
	w("outcomes:\n")
	if s.idPath != "" {
		w("  payment_id: %s   # the payment id member of the create answer\n", q(s.idPath))
	} else {
		w("  # payment_id: no member of the create answer looked like a payment id (id, payment_id): set it if there is one\n")
	}
	w("  rules:\n")
	for _, r := range inf.rules {
		w("    # seen: %s\n", comment(r.seen))
		if r.field != "" {
			w("    - {status: %s, field: %s, equals: %s, outcome: %s}\n", ints(r.status), q(r.field), q(r.equals), r.outcome)
		} else {
			w("    - {status: %s, outcome: %s}\n", ints(r.status), r.outcome)
		}
	}
	if inf.lookup {
		w("\n# seen: GET %s/<id> answered %s\nlookup:\n  path: %s\n", strings.TrimRight(o.Path, "/"), comment(describe(s.lookup)), q(strings.TrimRight(o.Path, "/")+"/{{payment_id}}"))
	} else if s.lookup != nil {
		w("\n# lookup: not set: GET %s/<id> answered %s\n", strings.TrimRight(o.Path, "/"), comment(describe(s.lookup)))
	}
	w("\n# refund: not probed (a refund moves money): see docs/CONFIG.md to enable S-multistep.\n")
	w("\neffects:\n  fakepsp: true\n")
	if o.PSP != "" && o.PSP != fakepsp.DefaultDialect {
		w("  psp: %s   # seen: the service calls %s's API\n", o.PSP, o.PSP)
	}
	if len(o.Command) == 0 {
		w("  # the running service charges through fakepsp here, with this key (idemcheck run listens there)\n")
		w("  fakepsp_listen: %s\n  fakepsp_secret_key: %s\n", q(o.PSPListen), q(o.PSPKey))
	}
	w("\nprofile: %s   # %s\nprotocol:\n", inf.profile, inf.why)
	for _, p := range inf.protocol {
		w("  %s: %s   # seen: %s\n", p.name, p.value, comment(p.seen))
	}
	w(`
# Not seen by a probe; set them to what you document:
# retry_horizon: 24h     # how long your clients retry one payment (B4 runs when --max-wait allows)
# key_window: 24h        # how long you keep a key (B5, P-expiry)
concurrency: 8           # copies sent at once in A2
timeout: %s             # one HTTP attempt
settle: 300ms            # effects must stay unchanged this long before judging
converge_within: 20s     # after a fault, retry this long for a final answer
quiesce: 30s             # quiet period before the final recount of every intent's charges
`, o.Timeout)
	return b.String()
}
