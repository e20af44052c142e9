package campaign

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/conform/report"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// BenchmarkMerge1000Reports: reading and merging the reports of a
// 1,000-seed campaign, one in ten failing, as `idemcheck merge` does.
func BenchmarkMerge1000Reports(b *testing.B) {
	dir := b.TempDir()
	for s := uint64(1); s <= 1000; s++ {
		v, k := scenario.Pass, ""
		if s%10 == 0 {
			v, k = scenario.Violation, "double-charge"
		}
		r := chaosReport(s, v, k, map[string]int{"no-fault": 20, "psp-reply-lost": 3})
		if err := os.MkdirAll(filepath.Join(dir, "shard"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := report.WriteJSON(filepath.Join(dir, "shard", "seed-"+itoa(s)+".json"), r); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		runs, _, err := Read([]string{dir})
		if err != nil {
			b.Fatal(err)
		}
		if c := Merge(runs); c.Seeds != 1000 || len(c.Findings) != 1 {
			b.Fatalf("%d seeds, %d findings", c.Seeds, len(c.Findings))
		}
	}
}

func itoa(s uint64) string { return seedList([]uint64{s}) }
