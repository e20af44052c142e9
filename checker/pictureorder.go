package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Porcupine (v1.3.1) lists an illegal partition's partial linearizations in
// an order that changes from run to run: checkParallel collects them by
// ranging over a map keyed by pointer, and Visualize then sorts them by
// length alone with sort.Slice, so two of the same length come out either
// way round, and Largest (which one a hovered op shows) follows. The same
// history must give the same picture, so draw puts them in a fixed order.

// pictureData mirrors the data porcupine's Visualize embeds, field for
// field and in its order, so that re-encoding changes nothing but the order
// of the partial linearizations and the Largest that follows from it.
type pictureData struct {
	Partitions  []picturePartition
	Annotations json.RawMessage
}

type picturePartition struct {
	History               json.RawMessage
	PartialLinearizations [][]pictureStep
	Largest               map[int]int
}

type pictureStep struct {
	Index            int
	StateDescription string
}

// pictureDataAt is where porcupine's page template puts the data: one line,
// as encoding/json escapes every control character in a string.
const pictureDataAt = "const data = "

// orderPicture rewrites porcupine's page so every partition lists its
// partial linearizations longest first, equal lengths by their op indices,
// and Largest names for each op the first longest one that holds it, as
// porcupine computes it.
func orderPicture(page []byte) ([]byte, error) {
	at := []byte(pictureDataAt)
	if bytes.Count(page, at) != 1 {
		return nil, fmt.Errorf("porcupine's page changed: cannot order it (%q not found once)", pictureDataAt)
	}
	start := bytes.Index(page, at) + len(at)
	end := bytes.IndexByte(page[start:], '\n')
	if end < 0 {
		return nil, fmt.Errorf("porcupine's page changed: its data does not end a line")
	}
	end += start
	var d pictureData
	if err := json.Unmarshal(page[start:end], &d); err != nil {
		return nil, fmt.Errorf("porcupine's page changed: its data: %w", err)
	}
	for i := range d.Partitions {
		orderPartials(&d.Partitions[i])
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(page)-(end-start)+len(data))
	out = append(out, page[:start]...)
	out = append(out, data...)
	return append(out, page[end:]...), nil
}

// orderPartials sorts p's partial linearizations and recomputes Largest the
// way porcupine's computeVisualizationData does, over the sorted list.
func orderPartials(p *picturePartition) {
	slices.SortStableFunc(p.PartialLinearizations, func(a, b []pictureStep) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		for i := range a {
			if a[i].Index != b[i].Index {
				return a[i].Index - b[i].Index
			}
		}
		return 0
	})
	size := map[int]int{}
	largest := map[int]int{}
	for i, lin := range p.PartialLinearizations {
		for _, s := range lin {
			if size[s.Index] < len(lin) {
				size[s.Index] = len(lin)
				largest[s.Index] = i
			}
		}
	}
	p.Largest = largest
}
