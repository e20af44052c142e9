package core

import "testing"

type testRecord struct {
	Payment
	word string // what only a dialect keeps
}

func (r *testRecord) Core() *Payment { return &r.Payment }

// TestBookReadsByID: a book finds a dialect's record by its payment's id,
// lists records in creation order, and Read copies the core's part, so a
// change to the copy leaves the payment alone.
func TestBookReadsByID(t *testing.T) {
	b := NewBook[*testRecord]()
	b.Add(&testRecord{Payment: Payment{ID: "b", Amount: 2}, word: "second"})
	b.Add(&testRecord{Payment: Payment{ID: "a", Amount: 1}, word: "first"})
	if r := b.Get("a"); r == nil || r.word != "first" || !b.Has("b") || b.Has("c") || b.Get("c") != nil {
		t.Fatalf("Get/Has wrong: %+v", r)
	}
	if all := b.All(); len(all) != 2 || all[0].ID != "b" || all[1].ID != "a" {
		t.Fatalf("All: %+v", all)
	}
	p, ok := b.Read("b")
	if !ok || p.Amount != 2 {
		t.Fatalf("Read: %+v %v", p, ok)
	}
	p.Amount = 99
	if b.Get("b").Amount != 2 {
		t.Fatal("Read returned the payment itself, not a copy")
	}
	if _, ok := b.Read("c"); ok {
		t.Fatal("Read found a payment never added")
	}
}
