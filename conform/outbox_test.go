package conform

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/stack/services"
)

// burstSeeds is how many seeds TestOutboxRangeDeleteNeedsTheBursts runs
// the correct relay in: 2 in the test suite (its time goal), or
// $IDEMCHECK_BURST_SEEDS (10 when measured for issue 49). With it set the
// flawed relay also runs with the bursts off, to measure how often the
// window is met without them.
func burstSeeds(t *testing.T) (int, bool) {
	if s := os.Getenv("IDEMCHECK_BURST_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("IDEMCHECK_BURST_SEEDS=%q is not a count", s)
		}
		return n, true
	}
	return 2, false
}

// TestOutboxRangeDeleteNeedsTheBursts: paysvc's outbox relay reads the
// outbox, sends what it read to the ledger, then deletes every row created
// up to its read instead of the rows it read: a charge whose outbox row
// commits between the read and the delete never reaches the ledger
// (ledger-missing). On a loopback that window is a fraction of a
// millisecond; chaos's latency bursts on the service's Postgres link
// stretch it to tens or hundreds, and the flaw is caught in every seed.
// The relay that deletes the ids it read passes. Measured for issue 49
// (IDEMCHECK_BURST_SEEDS=10): caught in 5 of 5 seeds with the bursts (9 to
// 17 charges lost a run), in 1 of 15 runs without them (one charge lost);
// the correct relay passed 10 of 10.
func TestOutboxRangeDeleteNeedsTheBursts(t *testing.T) {
	t.Parallel()
	pg := testPostgres(t)
	n, measure := burstSeeds(t)
	cases := []struct {
		flaw   string
		bursts bool
		seeds  int
	}{
		{"outbox-range-delete", true, 5},
		{"none", true, n},
	}
	if measure {
		cases = append(cases, struct {
			flaw   string
			bursts bool
			seeds  int
		}{"outbox-range-delete", false, 5})
	}
	// The runs go at once, not as parallel subtests: each is a 20 s chaos
	// run that the service's retries stretch to about 50 s, mostly waiting,
	// and -parallel (the machine's cores by default) would queue them.
	type run struct {
		name       string
		flaw       string
		bursts     bool
		seed       uint64
		code       int
		rep        *report.Report
		done       chan struct{}
		configPath string
	}
	var runs []*run
	for _, c := range cases {
		for seed := uint64(1); seed <= uint64(c.seeds); seed++ {
			r := &run{name: fmt.Sprintf("%s/bursts-%v/seed-%d", c.flaw, c.bursts, seed), flaw: c.flaw, bursts: c.bursts, seed: seed, done: make(chan struct{})}
			r.configPath = outboxFixture(t, pg, r.name, c.flaw, c.bursts).config(t)
			runs = append(runs, r)
			go func() {
				defer close(r.done)
				// One mild fault, as the other chaos fixtures: what widens
				// the window here is the bursts.
				r.code, r.rep, _ = runConfig(t, r.configPath, r.name, Options{Chaos: true, Seed: r.seed, Duration: 20 * time.Second, Quiet: true, ChaosFaults: []string{"psp-slow"}})
			}()
		}
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			<-r.done
			code, rep, seed := r.code, r.rep, r.seed
			got := kinds(rep)
			held := burstsHeld(t, rep)
			switch {
			case !r.bursts:
				// Measured, not asserted: how often the window is met at a
				// loopback's speed.
				t.Logf("MEASURE bursts off, seed %d: exit %d, kinds %v", seed, code, got)
				if held != 0 {
					t.Errorf("toxiproxy.bursts: off, and %d bursts held traffic", held)
				}
			case r.flaw == "none":
				if code != ExitPass || len(got) > 0 {
					t.Errorf("the correct relay: exit %d, kinds %v; want 0 and none", code, got)
				}
			default:
				if code != ExitViolation || !got["ledger-missing"] || len(got) != 1 {
					t.Errorf("exit %d, kinds %v; want exit 1 with ledger-missing only", code, got)
				}
			}
			if r.bursts && held == 0 {
				t.Errorf("no latency burst held traffic on the Postgres link")
			}
			// One changed-meaning retry per field: every seed changes each
			// of the four meaning fields alone.
			if m := coverageDim(t, rep, "meaning field (changed alone)"); len(m.Missing) > 0 {
				t.Errorf("meaning fields never changed alone: %v", m.Missing)
			}
		})
	}
}

// outboxFixture is paysvc writing its ledger through an outbox in a
// database of its own, its Postgres reached through a Toxiproxy link.
func outboxFixture(t *testing.T, pg, name, flaw string, bursts bool) fixture {
	t.Helper()
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	db := "outbox_" + strings.NewReplacer("/", "_", "-", "_").Replace(strings.ToLower(name))
	db = db[len(db)-min(len(db), 60):]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	extra := ledgerCfg + fmt.Sprintf("toxiproxy:\n  links:\n    - {name: PG, upstream: %q}\n", u.Host)
	if !bursts {
		extra += "  bursts: off\n"
	}
	return fixture{flaw: flaw, extra: extra, settle: "600ms",
		args: []string{"--outbox-dsn", "postgres://postgres@PG_ADDR/" + db + "?sslmode=disable"}}
}

// testPostgres starts a Postgres for the test and stops it after.
func testPostgres(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := services.Start(ctx, services.Options{Postgres: true, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Stop(context.Background()) })
	return st.Postgres.Endpoint()
}

// burstsHeld is how many latency bursts held traffic on the Postgres
// link, from the chaos result's coverage.
func burstsHeld(t *testing.T, rep *report.Report) int {
	t.Helper()
	return coverageDim(t, rep, "latency burst on link (held traffic)").Exercised["PG"]
}

// coverageDim is one dimension of the chaos result's coverage.
func coverageDim(t *testing.T, rep *report.Report, name string) scenario.CoverageDim {
	t.Helper()
	if rep == nil {
		t.Fatal("no report")
	}
	for _, r := range rep.Results {
		if r.ID != "chaos" || r.Coverage == nil {
			continue
		}
		t.Logf("chaos (%s): %s", r.Elapsed.Round(time.Second), r.Why)
		for _, l := range r.Coverage.Lines() {
			t.Logf("%s", l)
		}
		i := slices.IndexFunc(r.Coverage.Dimensions, func(d scenario.CoverageDim) bool { return d.Name == name })
		if i < 0 {
			t.Fatalf("chaos coverage has no dimension %q", name)
		}
		return r.Coverage.Dimensions[i]
	}
	t.Fatal("no chaos result with coverage")
	return scenario.CoverageDim{}
}
