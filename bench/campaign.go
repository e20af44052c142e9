package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/conform"
	"github.com/idemcheck/idemcheck/conform/campaign"
	"github.com/idemcheck/idemcheck/reference"
)

// campaignSwitch is the guard switch the campaign and shrink sections turn
// off: the resolver makes a fresh PSP key, so a settled payment is charged
// twice (double-charge), a bug a few seeds find.
const campaignSwitch = "resolver-fresh-psp-key"

// runCampaign runs a campaign of seeds on the reference with one guard
// switch, on the bench's servers, one seed after another as a shard does,
// and merges their reports. It reports seeds per core-hour (the CPU time
// of this process and every server and tier it started, so the figure
// holds on a machine of any size) and per wall hour, the distinct findings,
// and the time to merge 1,000 reports of this campaign's real size; then
// the same figures on a fixture (campaign_fixture.go).
func runCampaign(ctx context.Context, r *runner) error {
	seeds := r.size(2, 8)
	d := time.Duration(r.size(5, 10)) * time.Second
	first := r.firstSeed()
	dir, lf, err := r.sectionDir("campaign")
	if err != nil {
		return err
	}
	defer lf.Close()
	r.logf("campaign: seeds %d..%d of %s with %s (rerun: idemcheck bench --only campaign --seed %d); reports %s", first, first+uint64(seeds)-1, d, campaignSwitch, first, dir)
	before, t0 := treeCPU(), time.Now()
	var paths []string
	for i := range seeds {
		// Each seed's reports under the section's directory: the reference
		// writes its HTML to a temp dir of its own when told nowhere.
		o := conform.Options{Chaos: true, Duration: d, Seed: first + uint64(i), Quiet: true,
			JSON: filepath.Join(dir, fmt.Sprintf("seed-%d.json", first+uint64(i))), HTML: filepath.Join(dir, fmt.Sprintf("seed-%d", first+uint64(i))),
			Stdout: lf, Stderr: lf}
		code, rep := reference.RunStack(ctx, o, reference.Stack{Mutants: campaignSwitch, Services: r.srv.stack})
		if rep == nil {
			return fmt.Errorf("campaign seed %d did not run (exit %d); log %s", o.Seed, code, lf.Name())
		}
		paths = append(paths, o.JSON)
	}
	wall, cpu := time.Since(t0), treeCPU()-before
	label := fmt.Sprintf("campaign on the reference (%s off), %d seeds of %s", campaignSwitch, seeds, d)
	if err := campaignFigures(r, label, "campaign_", paths, seeds, wall, cpu); err != nil {
		return err
	}
	ms, size, err := mergeThousand(paths, filepath.Join(dir, "merge1000"))
	if err != nil {
		return err
	}
	r.row("merge of 1,000 reports of this campaign's size", fmt.Sprintf("%.2f s", ms), fmt.Sprintf("%.0f KiB a report", size/1024), "")
	r.key("campaign_merge_1000_s", "%.2f", ms)
	return runFixtureCampaign(ctx, r, dir, lf)
}

// campaignFigures reads and merges a campaign's reports from paths and
// records its row and its keys (prefix + seeds_per_core_hour, ...): seeds
// per core-hour over cpu, per wall hour, and the distinct findings. A
// campaign that reported fewer seeds than it ran, or read no CPU, is a
// failed measurement.
func campaignFigures(r *runner, label, prefix string, paths []string, seeds int, wall, cpu time.Duration) error {
	runs, _, err := campaign.Read(paths)
	if err != nil {
		return err
	}
	c := campaign.Merge(runs)
	if c.Seeds != seeds {
		return fmt.Errorf("%s: %d of its %d seeds reported", label, c.Seeds, seeds)
	}
	if cpu <= 0 {
		return fmt.Errorf("%s: no CPU time was read (is /proc readable?)", label)
	}
	perCoreHour := float64(seeds) / cpu.Hours()
	r.row(label, fmt.Sprintf("%.0f seeds/core-hour", perCoreHour),
		fmt.Sprintf("%.0f seeds/hour wall; %d distinct finding(s) in %d failing seed(s)", float64(seeds)/wall.Hours(), len(c.Findings), c.FailedRuns), "")
	r.key(prefix+"seeds_per_core_hour", "%.0f", perCoreHour)
	r.key(prefix+"seeds_per_wall_hour", "%.0f", float64(seeds)/wall.Hours())
	r.key(prefix+"distinct_findings", "%d", len(c.Findings))
	return nil
}

// mergeThousand writes 1,000 copies of the campaign's reports, each under
// a seed of its own (a copy with its seed unchanged would count once), and
// times reading and merging them all; it returns the seconds and the mean
// report size.
func mergeThousand(paths []string, dir string) (float64, float64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	var total int64
	for i := 0; i < 1000; i++ {
		raw, err := os.ReadFile(paths[i%len(paths)])
		if err != nil {
			return 0, 0, err
		}
		// As a map, so every field the report wrote (schema_version among
		// them) is kept; only the seed changes.
		var rep map[string]any
		if err := json.Unmarshal(raw, &rep); err != nil {
			return 0, 0, err
		}
		seed := 1_000_000 + i
		rep["seed"] = strconv.Itoa(seed) // the report writes the seed as a string
		out, err := json.Marshal(rep)
		if err != nil {
			return 0, 0, err
		}
		total += int64(len(out))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d.json", seed)), out, 0o644); err != nil {
			return 0, 0, err
		}
	}
	t0 := time.Now()
	runs, _, err := campaign.Read([]string{dir})
	if err != nil {
		return 0, 0, err
	}
	c := campaign.Merge(runs)
	el := time.Since(t0).Seconds()
	if c.Seeds != 1000 {
		return 0, 0, fmt.Errorf("merged %d of 1,000 reports", c.Seeds)
	}
	return el, float64(total) / 1000, nil
}
