package checker

import "sort"

// A piece is what checkPiece found in one piece of a file, before the
// findings of all pieces are merged into one Result (combine). A streamed
// check (stream.go) holds one piece at a time of the file's ops and keeps
// only this of each.
type piece struct {
	ops, partitions int
	invalid         []string
	found           []found // unmerged, in the order found
	unknown         []placedUnknown
	shapes          shapeVerdict
	failed          []*partition // illegal partitions, for the pictures
	kept            []*partition // partitions a finding may be about
	// stretches counts each merchant's stretches: their names number them
	// over every merchant of the file (stretchName).
	stretches map[string]int
}

// Where a finding comes from, in the order check finds them in a whole file:
// the partitions' verdicts, then each pass over the whole file.
const (
	stagePartition = iota
	stageCross
	stageQuiescence
	stageStacked
	stageSink
	stageRefunds
)

// found is a violation and its place: the stage that found it and, within
// the stage, a key in the order the stage finds violations in. Two findings
// of one kind at one place are merged in that order (mergeViolations), so
// the pieces of a file must come back to it. Findings of one intent or one
// merchant always come from one piece, in that piece's order; only those that
// name neither (a stacked notification or a refund nothing ties to an
// intent) need the key, and stages that never make one leave it empty.
type found struct {
	stage int
	key   string
	v     Violation
	part  *partition // the partition whose verdict it is, if any
}

func placed(stage int, vs []Violation) []found {
	out := make([]found, len(vs))
	for i, v := range vs {
		out[i] = found{stage: stage, v: v}
	}
	return out
}

type placedUnknown struct {
	part *partition
	u    UnknownPartition
}

// order is where a partition comes in a whole file's check: the intents by
// name, then the merchants by name, each merchant's stretches in time order.
func (p *partition) order() string {
	if p.Merchant == "" && p.Intent != "" {
		return "0" + p.Intent
	}
	return "1" + p.Merchant + "\x00" + itoa10(p.stretch)
}

// itoa10 writes n with leading zeros, so the strings sort as the numbers do.
func itoa10(n int) string {
	s := itoa(n)
	for len(s) < 10 {
		s = "0" + s
	}
	return s
}

// combine merges the pieces of a file (one piece: the whole file) into the
// Result a check of the whole file gives.
func combine(opts CheckOptions, pieces []*piece) *Result {
	renameStretches(pieces)
	res := &Result{opts: opts}
	var all []found
	var unknown []placedUnknown
	var shapeVs []Violation
	var shapeUs []UnknownPartition
	for _, pc := range pieces {
		res.Ops += pc.ops
		res.Partitions += pc.partitions
		res.Invalid = append(res.Invalid, pc.invalid...)
		all = append(all, pc.found...)
		unknown = append(unknown, pc.unknown...)
		shapeVs = append(shapeVs, pc.shapes.violations...)
		shapeUs = append(shapeUs, pc.shapes.unknown...)
		res.failed = append(res.failed, pc.failed...)
		res.parts = append(res.parts, pc.kept...)
	}
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].stage != all[b].stage {
			return all[a].stage < all[b].stage
		}
		return all[a].key < all[b].key
	})
	for _, f := range all {
		res.Violations = append(res.Violations, f.v)
	}
	res.Violations = mergeViolations(res.Violations)
	sort.SliceStable(shapeVs, func(a, b int) bool { return shapeOrder(shapeVs[a].Partition) < shapeOrder(shapeVs[b].Partition) })
	res.Violations = append(res.Violations, shapeVs...)
	sortViolations(res.Violations)

	sort.SliceStable(unknown, func(a, b int) bool { return unknown[a].part.order() < unknown[b].part.order() })
	for _, u := range unknown {
		res.Unknown = append(res.Unknown, u.u)
	}
	sort.SliceStable(shapeUs, func(a, b int) bool { return shapeOrder(shapeUs[a].Name) < shapeOrder(shapeUs[b].Name) })
	res.Unknown = append(res.Unknown, shapeUs...)

	byOrder := func(ps []*partition) {
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].order() < ps[b].order() })
	}
	byOrder(res.failed)
	byOrder(res.parts)
	res.parts = aboutViolations(res.parts, res.Violations)
	return res
}

// renameStretches names each piece's merchant stretches by their number
// over the whole file's merchants, as a check of the whole file names them,
// wherever a name is reported: violations, undecided partitions, pictures.
func renameStretches(pieces []*piece) {
	count := map[string]int{}
	for _, pc := range pieces {
		for m, n := range pc.stretches {
			count[m] += n
		}
	}
	names := make([]string, 0, len(count))
	for m := range count {
		names = append(names, m)
	}
	sort.Strings(names)
	first := make(map[string]int, len(names))
	n := 0
	for _, m := range names {
		first[m] = n
		n += count[m]
	}
	name := func(p *partition) string { return stretchName(p.Merchant, first[p.Merchant]+p.stretch) }
	isStretch := func(p *partition) bool { return p != nil && p.Intent == "" }
	for _, pc := range pieces {
		for i := range pc.found {
			if f := &pc.found[i]; isStretch(f.part) {
				f.v.Partition = name(f.part)
			}
		}
		for i := range pc.unknown {
			if u := &pc.unknown[i]; isStretch(u.part) {
				u.u.Name = name(u.part)
			}
		}
		for _, ps := range [][]*partition{pc.failed, pc.kept} {
			for _, p := range ps {
				if isStretch(p) {
					p.Name = name(p)
				}
			}
		}
	}
}
