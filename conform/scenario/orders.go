package scenario

import (
	"fmt"
	"slices"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// What the Env keeps of every order a run sent, for the attribution and
// the final recount. A soak sends thousands: memory holds the orders of
// the rounds not yet absorbed (the index track needs), and an absorbed
// round's orders go to a log on disk (orders_disk.go), read back in
// first-sent order whenever every order is asked for (issue 54).

// tracked is one order id of the run: the check that made it, its amount
// (other amounts sent under it, rare, are in orderState.alt), the least
// name of the intents that sent it (the recount's finding names that one)
// and what the check's judge expected and counted.
type tracked struct {
	id                      string
	check                   string
	amount                  int64
	first                   string
	judged                  bool
	expect, charges, ledger int32
	// judgedOnly says Judged named an order the rounds since the last
	// absorb did not send: it carries the judge's counts to the order's
	// record on disk, and nothing else (orders_disk.go merges it).
	judgedOnly bool
}

// orderState is the run's orders not yet absorbed, in first-sent order,
// where each is, and the log of the absorbed ones.
type orderState struct {
	at   map[string]int32
	list []tracked
	// of is the order id each intent (caller and key) first sent, for the
	// intents of the rounds not yet judged (forgetIntents).
	of map[string]string
	// alt are the other amounts sent under an order (A5's mismatch), by
	// its position in list.
	alt map[int32][]int64
	// gen counts track's changes to the orders (attrInputs).
	gen uint64
	// done are the absorbed rounds' orders (orders_disk.go); readErr is
	// the first failure to read them back since takeReadError asked.
	done    *ordersLog
	readErr spill.FirstErr
}

// track registers what a check sent under an order id.
func (e *Env) track(check string, in Intent, intent string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.orders
	order := in.Meaning.OrderID
	if first, ok := s.of[intent]; ok && intent != "" {
		// Another meaning under a key already used (a mismatch): what it
		// may have charged belongs to the key's first order.
		order = first
	}
	i, ok := s.at[order]
	// An order judged before this span sent it keeps that judgedOnly
	// record where it is (it applies to an absorbed record of the order,
	// or to none) and is sent under a record of its own, after it.
	if !ok || s.list[i].judgedOnly {
		if s.at == nil {
			s.at = map[string]int32{}
		}
		i = int32(len(s.list))
		s.at[order] = i
		s.list = append(s.list, tracked{id: order, check: check, amount: in.Meaning.Amount})
		s.gen++
	}
	tr := &s.list[i]
	if intent != "" {
		if s.of == nil {
			s.of = map[string]string{}
		}
		if _, ok := s.of[intent]; !ok {
			s.of[intent] = order
		}
		if tr.first == "" || intent < tr.first {
			tr.first = intent
		}
	}
	if in.Meaning.Amount != tr.amount && !slices.Contains(s.alt[i], in.Meaning.Amount) {
		if s.alt == nil {
			s.alt = map[int32][]int64{}
		}
		s.alt[i] = append(s.alt[i], in.Meaning.Amount)
		s.gen++
	}
}

// forgetIntents lets go of which order each intent sent so far first sent:
// a long check's judged round sends under none of its keys again (each
// round draws its own), and a soak would otherwise hold every key of the
// run. The orders themselves stay, for the recount.
func (e *Env) forgetIntents() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.orders.of = nil
}

// Orders lists every order the run sent, in first-sent order. An order
// that could not be read back from disk is the check's read error
// (takeReadError), never silently one order fewer.
func (e *Env) Orders() []Order {
	orders, _, _ := e.ordersAt()
	return orders
}

// ordersGeneration is the orders' generation (see attrInputs).
func (e *Env) ordersGeneration() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.orders.gen
}

// ordersAt is Orders with the generation they are of, and the read error
// (also kept for takeReadError) when the absorbed ones could not all be read.
func (e *Env) ordersAt() ([]Order, uint64, error) {
	out, gen, _, err := e.ordersAtResent()
	return out, gen, err
}

// ordersAtResent is ordersAt, and says whether an order of the rounds
// since the last absorb was sent by an earlier round too.
func (e *Env) ordersAtResent() ([]Order, uint64, bool, error) {
	all, gen, resent, err := e.allTrackedResent()
	out := make([]Order, 0, len(all))
	for _, m := range all {
		out = append(out, Order{ID: m.id, Amount: m.amount, Alt: m.alt})
	}
	return out, gen, resent, err
}

// trackedCopy is every order's record, for the recount; see ordersAt.
func (e *Env) trackedCopy() ([]tracked, error) {
	all, _, err := e.allTracked()
	out := make([]tracked, 0, len(all))
	for _, m := range all {
		out = append(out, m.tracked)
	}
	return out, err
}

// Judged records what a check's judge expected and counted for an order,
// for the final recount.
func (e *Env) Judged(order string, expect, charges, ledger int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.orders
	i, ok := s.at[order]
	if !ok {
		if s.done == nil || s.done.log.Len() == 0 {
			return // an order the run never sent, as before
		}
		// Maybe an absorbed round's: the record carries the counts to it.
		if s.at == nil {
			s.at = map[string]int32{}
		}
		i = int32(len(s.list))
		s.at[order] = i
		s.list = append(s.list, tracked{id: order, judgedOnly: true})
	}
	tr := &s.list[i]
	tr.judged, tr.expect, tr.charges, tr.ledger = true, int32(expect), int32(charges), int32(ledger)
}

// takeOrdersReadError returns, and forgets, the first failure to read the
// absorbed orders back.
func (e *Env) takeOrdersReadError() error {
	if err := e.orders.readErr.Take(); err != nil {
		return fmt.Errorf("the run's orders: %w", err)
	}
	return nil
}
