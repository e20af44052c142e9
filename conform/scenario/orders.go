package scenario

import "slices"

// What the Env keeps of every order a run sent, for the attribution and
// the final recount: a soak sends thousands, and this is what stays in
// memory of each after its round was judged and forgotten (issue 54), so
// it is one flat record, not a map of its intents.

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
}

// orderState is the run's orders in first-sent order, and where each is.
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
	if !ok {
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

// Orders lists every order the run sent, in first-sent order.
func (e *Env) Orders() []Order {
	orders, _ := e.ordersAt()
	return orders
}

// ordersGeneration is the orders' generation (see attrInputs).
func (e *Env) ordersGeneration() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.orders.gen
}

// ordersAt is Orders with the generation they are of.
func (e *Env) ordersAt() ([]Order, uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Order, 0, len(e.orders.list))
	for i, tr := range e.orders.list {
		out = append(out, Order{ID: tr.id, Amount: tr.amount, Alt: slices.Clone(e.orders.alt[int32(i)])})
	}
	return out, e.orders.gen
}

// trackedCopy is every order's record, for the recount.
func (e *Env) trackedCopy() []tracked {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.orders.list)
}

// Judged records what a check's judge expected and counted for an order,
// for the final recount.
func (e *Env) Judged(order string, expect, charges, ledger int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if i, ok := e.orders.at[order]; ok {
		tr := &e.orders.list[i]
		tr.judged, tr.expect, tr.charges, tr.ledger = true, int32(expect), int32(charges), int32(ledger)
	}
}
