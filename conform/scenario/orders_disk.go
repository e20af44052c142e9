package scenario

import (
	"errors"
	"fmt"
	"slices"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// The absorbed rounds' orders live on disk: a soak's thousands would
// otherwise each keep a record and an index entry in memory for the whole
// run, though only the attribution and the final recount read them, all at
// once and in first-sent order.

// ordersLog is the log of the absorbed orders and the store it is on.
type ordersLog struct {
	disk *spill.Store
	log  *spill.Log[diskOrder]
}

// diskOrder is a tracked order with its other amounts, as gob writes it.
type diskOrder struct {
	ID, Check, First        string
	Amount                  int64
	Alt                     []int64
	Judged, JudgedOnly      bool
	Expect, Charges, Ledger int32
}

// mergedOrder is an order's record with its other amounts.
type mergedOrder struct {
	tracked
	alt []int64
}

// absorbOrders moves the orders tracked since the last absorb to the log
// on disk, in first-sent order, and lets their index go: a long check's
// round was judged and sends under none of them again. Called by Absorb.
func (e *Env) absorbOrders() {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.orders
	if len(s.list) == 0 {
		return
	}
	if s.done == nil {
		d := &spill.Store{Owner: "orders"}
		s.done = &ordersLog{disk: d, log: spill.NewLog[diskOrder](d)}
	}
	for i, tr := range s.list {
		// A chunk the disk refuses stays in the log's memory: never lost.
		s.done.log.Add(diskOrder{ID: tr.id, Check: tr.check, First: tr.first, Amount: tr.amount, Alt: s.alt[int32(i)],
			Judged: tr.judged, JudgedOnly: tr.judgedOnly, Expect: tr.expect, Charges: tr.charges, Ledger: tr.ledger})
	}
	s.at, s.list, s.alt = nil, nil, nil
}

// allTracked is every order's record in first-sent order, the absorbed
// ones read back from disk, with the generation of the orders. A chunk
// that cannot be read is an error, kept for takeReadError: the check is
// Errored, as an order missing would make its charges look unattributed or
// hide a double charge.
func (e *Env) allTracked() ([]mergedOrder, uint64, error) {
	recs, gen, _, err := e.allTrackedResent()
	return recs, gen, err
}

// allTrackedResent is allTracked, and says whether an order sent since the
// last absorb was sent by an earlier round too (the round's view of the
// charges would miss that order's earlier ones).
func (e *Env) allTrackedResent() ([]mergedOrder, uint64, bool, error) {
	// The span in memory first, then the disk: an absorb in between puts
	// the span on disk too, and the merge folds the copies into one.
	e.mu.Lock()
	s := &e.orders
	cur := make([]mergedOrder, len(s.list))
	for i, tr := range s.list {
		cur[i] = mergedOrder{tracked: tr, alt: slices.Clone(s.alt[int32(i)])}
	}
	gen, done := s.gen, s.done
	e.mu.Unlock()
	if done == nil {
		// Nothing absorbed: ids are unique and no record is judgedOnly.
		return cur, gen, false, nil
	}
	all := make([]mergedOrder, 0, done.log.Len()+len(cur))
	err := done.log.Each(func(d diskOrder) bool {
		all = append(all, mergedOrder{tracked: tracked{id: d.ID, check: d.Check, first: d.First, amount: d.Amount,
			judged: d.Judged, judgedOnly: d.JudgedOnly, expect: d.Expect, charges: d.Charges, ledger: d.Ledger}, alt: d.Alt})
		return true
	})
	if err != nil {
		err = fmt.Errorf("%d absorbed orders on disk, some unreadable: %w", done.log.Len(), err)
		e.orders.readErr.Keep(err)
	}
	merged, resent := mergeOrders(append(all, cur...), len(all))
	return merged, gen, resent, err
}

// mergeOrders folds every later record of an order id into its first, as
// track and Judged would have on one record kept in memory all along: the
// first check and amount stay, the least intent name wins, other amounts
// are added in the order they were sent, and the latest judged counts win.
// A judgedOnly record of an order never sent is dropped, as Judged ignores
// an unknown order.
//
// The records before split are the absorbed ones; resent says whether a
// record after it that is not judgedOnly folded into one of them.
func mergeOrders(recs []mergedOrder, split int) (_ []mergedOrder, resent bool) {
	at := make(map[string]int, len(recs))
	out := recs[:0]
	absorbed := 0
	for k, r := range recs {
		if k == split {
			absorbed = len(out)
		}
		i, seen := at[r.id]
		if seen && k >= split && i < absorbed && !r.judgedOnly {
			resent = true
		}
		if !seen {
			if r.judgedOnly {
				continue
			}
			at[r.id] = len(out)
			out = append(out, r)
			continue
		}
		m := &out[i]
		if !r.judgedOnly {
			if r.first != "" && (m.first == "" || r.first < m.first) {
				m.first = r.first
			}
			for _, a := range append([]int64{r.amount}, r.alt...) {
				if a != m.amount && !slices.Contains(m.alt, a) {
					m.alt = append(m.alt, a)
				}
			}
		}
		if r.judged {
			m.judged, m.expect, m.charges, m.ledger = true, r.expect, r.charges, r.ledger
		}
	}
	clear(recs[len(out):])
	return out, resent
}

// Close lets the absorbed orders' file and the view's go: the run is over
// and reported. Their descriptors would otherwise stay open until the Env
// is collected, one per run of a campaign's process.
func (e *Env) Close() error {
	e.mu.Lock()
	done := e.orders.done
	e.mu.Unlock()
	v := e.viewSnap()
	err := errors.Join(v.named.close(), v.goneKeys.close(), v.goneIDs.close())
	if done == nil {
		return err
	}
	return errors.Join(done.disk.Close(), err)
}
