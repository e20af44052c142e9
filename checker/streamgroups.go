package checker

// joiner unions the names of a file's ops (streamkeys.go) as a first pass
// reads them, then cuts the file into pieces of whole components. It holds
// per line one name number (4 bytes) and per name a hash and a parent,
// never an op.
type joiner struct {
	number *nameTable
	parent []uint32
	// first is, by line (from 0), the number of the line's first name, or
	// noName for a blank line or an op with none.
	first []uint32
}

const noName = ^uint32(0)

func newJoiner() *joiner { return &joiner{number: newNameTable()} }

func (j *joiner) find(x uint32) uint32 {
	for j.parent[x] != x {
		j.parent[x] = j.parent[j.parent[x]]
		x = j.parent[x]
	}
	return x
}

// line records the names of the next line.
func (j *joiner) line(ks *opKeys) {
	if ks == nil || ks.n == 0 {
		j.first = append(j.first, noName)
		return
	}
	var root uint32
	for i, k := range ks.k[:ks.n] {
		id, ok := j.number.number(k, uint32(len(j.parent)))
		if !ok {
			j.parent = append(j.parent, id)
		}
		if i == 0 {
			j.first = append(j.first, id)
			root = j.find(id)
			continue
		}
		if r := j.find(id); r != root {
			j.parent[r] = root
		}
	}
}

// pieces numbers the piece of each line: components whole, packed in order
// of their first line into pieces of about size ops (a component bigger
// than size is a piece of its own). Ops with no name go to piece 0. It
// frees the names. blank lines get piece noPiece.
func (j *joiner) pieces(size int) (byLine []uint32, count int) {
	j.number = nil
	ops := make([]uint32, len(j.parent)) // by root: its ops
	for _, id := range j.first {
		if id != noName {
			ops[j.find(id)]++
		}
	}
	piece := make([]uint32, len(j.parent)) // by root: its piece + 1
	fill := 0
	count = 1
	for _, id := range j.first {
		if id == noName {
			continue
		}
		r := j.find(id)
		if piece[r] != 0 {
			continue
		}
		if fill > 0 && fill+int(ops[r]) > size {
			count++
			fill = 0
		}
		piece[r] = uint32(count)
		fill += int(ops[r])
	}
	byLine = j.first // reused: a line's piece replaces its name
	for i, id := range byLine {
		if id != noName {
			byLine[i] = piece[j.find(id)] - 1
		}
	}
	j.parent, j.first = nil, nil
	return byLine, count
}
