// Package campaign runs many chaos seeds as one job, split into shards that
// can run on many machines, and merges their reports into one answer: each
// distinct finding with the seeds that found it, the seeds that passed, the
// seeds that could not be judged, and the coverage summed over seeds.
package campaign

import (
	"fmt"
	"strconv"
	"strings"
)

// Range is the seeds A..B of a campaign, both included.
type Range struct{ First, Last uint64 }

// ParseRange reads "A-B" (or one seed "A").
func ParseRange(s string) (Range, error) {
	a, b, two := strings.Cut(strings.TrimSpace(s), "-")
	first, err := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	if err != nil || first == 0 {
		return Range{}, fmt.Errorf("--seeds %q: want A-B, two seeds of at least 1 (e.g. 1-40)", s)
	}
	last := first
	if two {
		if last, err = strconv.ParseUint(strings.TrimSpace(b), 10, 64); err != nil {
			return Range{}, fmt.Errorf("--seeds %q: %q is not a seed", s, b)
		}
	}
	if last < first {
		return Range{}, fmt.Errorf("--seeds %q: the last seed is before the first", s)
	}
	if last-first >= 1<<20 {
		return Range{}, fmt.Errorf("--seeds %q: more than %d seeds in one campaign", s, 1<<20)
	}
	return Range{first, last}, nil
}

// Shard is shard Index (from 0) of Count.
type Shard struct{ Index, Count int }

// ParseShard reads "I/N" (I from 0, as a Kubernetes Indexed Job counts).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want I/N, shard I (from 0) of N", s)
	}
	return checkShard(Shard{i, n}, "--shard "+strconv.Quote(s))
}

func checkShard(sh Shard, where string) (Shard, error) {
	if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return Shard{}, fmt.Errorf("%s: shard %d of %d does not exist (shards are 0..N-1)", where, sh.Index, sh.Count)
	}
	return sh, nil
}

// ShardFromEnv is the shard of a Kubernetes Indexed Job's pod: its index
// from JOB_COMPLETION_INDEX, the count from count (the --shards flag) or
// else IDEMCHECK_SHARDS, since Kubernetes does not put the completion count
// in a pod's environment. ok is false when JOB_COMPLETION_INDEX is unset.
func ShardFromEnv(getenv func(string) string, count int) (sh Shard, ok bool, err error) {
	idx := getenv("JOB_COMPLETION_INDEX")
	if idx == "" {
		return Shard{0, 1}, false, nil
	}
	i, err := strconv.Atoi(idx)
	if err != nil {
		return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX=%q is not a shard index", idx)
	}
	if count == 0 {
		n := getenv("IDEMCHECK_SHARDS")
		if n == "" {
			return Shard{}, true, fmt.Errorf("JOB_COMPLETION_INDEX=%d is set but the shard count is not: give --shards N or IDEMCHECK_SHARDS (the Job's completions)", i)
		}
		if count, err = strconv.Atoi(n); err != nil {
			return Shard{}, true, fmt.Errorf("IDEMCHECK_SHARDS=%q is not a count", n)
		}
	}
	sh, err = checkShard(Shard{i, count}, "JOB_COMPLETION_INDEX")
	return sh, true, err
}

// Seeds are the seeds of r that shard sh runs: every Count-th from
// First+Index, so shards get equal shares and the union of all shards is r.
func (r Range) Seeds(sh Shard) []uint64 {
	var out []uint64
	for s := r.First + uint64(sh.Index); s <= r.Last; s += uint64(sh.Count) {
		out = append(out, s)
		if s+uint64(sh.Count) < s { // overflow at the top of uint64
			break
		}
	}
	return out
}
