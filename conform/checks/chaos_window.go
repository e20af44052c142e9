package checks

import "math/rand/v2"

// The streams of the window's shuffles: apart from the per-intent streams
// (1..n) and PlaceOnce's (^j), so no draw of one moves another.
const (
	faultStream  uint64 = 0xfa17_0000_0000_0001
	shapeStream  uint64 = 0x5a9e_0000_0000_0001
	keyStream    uint64 = 0x6e40_0000_0000_0001
	borrowStream uint64 = 0xb0a0_0000_0000_0001
)

// shuffled is list in an order drawn from seed and stream: the order the
// opening intents of a schedule go through it.
func shuffled(seed, stream uint64, list []string) []string {
	out := append([]string(nil), list...)
	r := rand.New(rand.NewPCG(seed, stream))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// faultWindow puts every fault of names once on the opening intents of an
// n-intent schedule, in a seed-shuffled order: a uniform draw over some
// thirty faults leaves a few of them unhit for a whole short run, and a
// fault that never strikes proves nothing. Every third intent of the
// window keeps its drawn fault (usually none), so traffic keeps flowing
// between the faults there too, and the borrowed-key window's quiet slots
// stay without one (quietSlot). It maps intent index to fault.
func faultWindow(seed uint64, names []string, n int) map[int]string {
	perm := shuffled(seed, faultStream, names)
	out := map[int]string{}
	for i, k := 0, 0; i < n && k < len(perm); i++ {
		if i%3 == 2 {
			continue
		}
		if quietSlot(i) {
			out[i] = NoFault
			continue
		}
		out[i] = perm[k]
		k++
	}
	return out
}

// quietSlot says whether intent index i is one of the two borrowed-key slots
// that carry no fault, so that RESOLVE (which voids a key before its create
// reaches the PSP, where a fault would wait in vain) is sent on a borrowed
// key in every run.
func quietSlot(i int) bool { return i == borrowFrom+1 || i == borrowFrom+3 }
