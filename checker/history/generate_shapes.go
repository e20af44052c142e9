package history

import "math/rand"

// genShapes makes the generator's shape ops (shape.go): legal by
// construction, as the payments are. A write or move whose answer was lost
// or an error may or may not have been applied; the generator decides which,
// and the quiescent read shows what that decision leaves.
type genShapes struct {
	rng     *rand.Rand
	sl      *slab
	unknown func() bool
}

// answer sets how a client's shape op ended (lost, error or ok) and reports
// whether the service applied it. A lost or failed op is applied half the
// time, so both readings of an unknown outcome come up.
func (g *genShapes) answer(op *Op, ret int64, mayFail bool) (applied bool) {
	switch {
	case mayFail && g.unknown():
		return g.rng.Intn(2) == 0
	case mayFail && g.rng.Intn(8) == 0:
		op.Return, op.Output = g.sl.int64(ret), g.sl.output(&Output{Outcome: OutcomeError})
		return g.rng.Intn(2) == 0
	}
	op.Return, op.Output = g.sl.int64(ret), g.sl.output(&Output{Outcome: OutcomeOK})
	return true
}

func (g *genShapes) write(proc, device, item, value string, counter, call int64) Op {
	return Op{Process: proc, Op: OpWrite, Call: call,
		Input: Input{ShapeInput: ShapeInput{Device: device, Item: item, Value: value, Counter: g.sl.int64(counter)}}}
}

// item is C2's story told right: a device's LIKE (counter 1) acknowledged,
// its UNLIKE (counter 2) whose answer may be lost, then the LIKE's resend,
// delayed in the network, acknowledged last. Applying by version keeps the
// UNLIKE once it was applied. With other, a second device writes after them
// all and its value is the one left. The first write is always acknowledged
// so the item's read decides something.
func (g *genShapes) item(h History, p *genProcs, ks string, s int64, other bool) History {
	item, dev := "u"+ks+"/post", "D"+ks
	like := g.write(p.device, dev, item, "liked", 1, s+1)
	g.answer(&like, s+5, false)
	unlike := g.write(p.device, dev, item, "unliked", 2, s+10)
	value := "liked"
	if g.answer(&unlike, s+15, true) {
		value = "unliked"
	}
	resend := g.write(p.resend, dev, item, "liked", 1, s+20)
	g.answer(&resend, s+25, false)
	h = append(h, like, unlike, resend)
	if other {
		w := g.write(p.other, "E"+ks, item, "liked", 7, s+30)
		g.answer(&w, s+35, false)
		h, value = append(h, w), "liked"
	}
	read := Op{Process: p.state, Op: OpState, Call: s + 90, Return: g.sl.int64(s + 92),
		Input: Input{ShapeInput: ShapeInput{Item: item}}, Output: g.sl.output(&Output{ShapeOutput: ShapeOutput{Value: value}})}
	return append(h, read)
}

// message is C3's story told right: the parser stores a message in Inbox,
// the user moves it to Archive (acknowledged, so its read decides), and a
// redelivery of the parse, conditioned on the durable record, writes
// nothing. Variant 1 then deletes it, variant 2 moves it back to Inbox, each
// with an answer that may be lost; variant 0 also locates it before the move,
// a read nothing is judged by yet.
func (g *genShapes) message(h History, p *genProcs, ks string, offset, s, variant int64) History {
	msg := "msg" + ks
	store := func(call int64, stored bool) Op {
		return Op{Process: p.parser, Op: OpStore, Call: call, Return: g.sl.int64(call),
			Input:  Input{ShapeInput: ShapeInput{Message: msg, Offset: g.sl.int64(offset)}},
			Output: g.sl.output(&Output{ShapeOutput: ShapeOutput{Stored: g.sl.bool(stored)}})}
	}
	locate := func(call int64, where *[]string) Op {
		return Op{Process: p.state, Op: OpLocate, Call: call, Return: g.sl.int64(call + 2),
			Input: Input{ShapeInput: ShapeInput{Message: msg}}, Output: g.sl.output(&Output{ShapeOutput: ShapeOutput{Folders: where}})}
	}
	move := func(from, to string, call int64) Op {
		return Op{Process: p.user, Op: OpMove, Call: call, Input: Input{ShapeInput: ShapeInput{Message: msg, From: from, To: to}}}
	}
	h = append(h, store(s+1, true))
	if variant == 0 {
		h = append(h, locate(s+5, Folders("Inbox")))
	}
	out := move("Inbox", "Archive", s+10)
	g.answer(&out, s+20, false)
	h = append(h, out)
	if g.rng.Intn(2) == 0 {
		h = append(h, store(s+30, false))
	}
	where := Folders("Archive")
	switch variant {
	case 1:
		del := Op{Process: p.user, Op: OpDelete, Call: s + 40, Input: Input{ShapeInput: ShapeInput{Message: msg}}}
		if g.answer(&del, s+50, true) {
			where = Folders()
		}
		h = append(h, del)
	case 2:
		back := move("Archive", "Inbox", s+40)
		if g.answer(&back, s+50, true) {
			where = Folders("Inbox")
		}
		h = append(h, back)
	}
	return append(h, locate(s+90, where))
}
