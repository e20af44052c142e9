package stripe

import (
	"errors"
	"reflect"
	"testing"

	"github.com/idemcheck/idemcheck/internal/spill"
)

// Refunds filed on disk and in memory read back as they were, by id and
// newest first; an id whose random part is another's finds nothing.
func TestRecordBookReadsBackWhatItFiled(t *testing.T) {
	for _, onDisk := range []bool{true, false} {
		var disk *spill.Store
		if onDisk {
			disk = &spill.Store{Owner: "recordbook-test"}
			defer disk.Close()
		}
		b := newRefundBook(disk, &spill.FirstErr{})
		var made []*Refund
		for i := range 5 {
			rf := &Refund{ID: newID("re"), Amount: int64(100 + i), Intent: newID("pi"), Currency: "usd", Charge: newID("ch"),
				Metadata: map[string]string{"n": string(rune('a' + i))}, Reason: "requested_by_customer", Created: 1700000000 + int64(i)}
			if i == 2 {
				rf.Metadata, rf.Reason = nil, ""
			}
			b.add(rf)
			made = append(made, rf)
		}
		for _, want := range made {
			got, err := b.get(want.ID)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("on disk %v: get %s = %+v, %v; want %+v", onDisk, want.ID, got, err, want)
			}
			if other, err := b.get(want.ID[:len(want.ID)-1] + "x"); other != nil || err != nil {
				t.Fatalf("on disk %v: %s with another random part found %+v, %v", onDisk, want.ID, other, err)
			}
		}
		var order []string
		if err := b.each(func(rf *Refund) bool { order = append(order, rf.ID); return true }); err != nil {
			t.Fatal(err)
		}
		if want := []string{made[4].ID, made[3].ID, made[2].ID, made[1].ID, made[0].ID}; !reflect.DeepEqual(order, want) {
			t.Fatalf("on disk %v: newest first %v, want %v", onDisk, order, want)
		}
	}
}

// A refund that cannot be read back is an error on every read, kept for
// the PSP's ReadError, never "no such refund".
func TestRecordBookUnreadableIsAnError(t *testing.T) {
	disk := &spill.Store{Owner: "recordbook-test"}
	failed := &spill.FirstErr{}
	b := newRefundBook(disk, failed)
	rf := &Refund{ID: newID("re"), Amount: 5, Intent: newID("pi"), Currency: "usd"}
	b.add(rf)
	if err := disk.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := b.get(rf.ID); got != nil || !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("get after close = %+v, %v; want ErrClosed", got, err)
	}
	if err := b.each(func(*Refund) bool { return true }); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("each after close: %v, want ErrClosed", err)
	}
	var last error
	for r, err := range b.all() {
		if r != nil {
			t.Fatalf("all after close gave %+v", r)
		}
		last = err
	}
	if !errors.Is(last, spill.ErrClosed) {
		t.Fatalf("all after close ended with %v, want ErrClosed", last)
	}
	if err := failed.Take(); !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("ReadError would be %v, want the failed read", err)
	}
}
