package stripe

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/idemcheck/idemcheck/internal/spill"
)

// An intent written to disk and read back is the intent it was, every
// field and version; the book keeps only keep of them in memory, never one
// a request holds.
func TestIntentBookEvictsAndReadsBack(t *testing.T) {
	b, disk, failed := testBook(t, 2)
	store := b.store
	le := CardError(Decline{Code: "card_declined", DeclineCode: "generic_decline", Message: "Your card was declined."}, "ch_x", "pm_card_visa")
	var made []*Intent
	for i := range 6 {
		pi := &Intent{Payment: core.Payment{ID: newID("pi"), State: core.StateSucceeded, Method: "pm_card_visa", Amount: int64(100 + i),
			Currency: "usd", Created: 1700000000, AttemptID: newID("ch"), AttemptAt: 1700000001, Received: 50, Refunded: 7,
			Metadata: core.MetadataOf(map[string]string{"k": "v", "n": string(rune('a' + i))})}, store: store}
		pi.SetCapture("manual")
		if i%2 == 0 {
			pi.setDescription("d")
			pi.setLastError(&le)
		}
		b.Add(pi)
		pi.Snapshot()
		pi.Snapshot()
		made = append(made, pi)
	}
	held := made[5]
	for _, pi := range made[:5] {
		b.unpin(pi)
	}
	if len(b.live) > 2 {
		t.Fatalf("%d intents in memory, want at most 2", len(b.live))
	}
	if b.live[mustSeq(t, held.ID)] != held {
		t.Fatal("the intent a request holds was evicted")
	}
	for _, want := range made {
		got, err := b.peek(want.ID)
		if err != nil || got == nil {
			t.Fatalf("peek %s: %v, %v", want.ID, got, err)
		}
		// Byte-identical renderings: the last error's numbers come back as
		// json.Number, which renders as the int64 it was.
		g, _ := json.Marshal(got.JSON())
		w, _ := json.Marshal(want.JSON())
		if string(g) != string(w) || !reflect.DeepEqual(got.Versions, want.Versions) {
			t.Errorf("%s read back:\n%s\n%+v\nwant\n%s\n%+v", want.ID, g, got.Versions, w, want.Versions)
		}
		if other, _ := b.peek(want.ID[:len(want.ID)-1] + "x"); other != nil {
			t.Errorf("%s with another random part found %s", want.ID, other.ID)
		}
	}
	if err := disk.Close(); err != nil {
		t.Fatal(err)
	}
	if pi, err := b.peek(made[0].ID); pi != nil || !errors.Is(err, spill.ErrClosed) {
		t.Fatalf("peek from a closed store: %v, %v; want the store's error", pi, err)
	}
	if b.Get(made[0].ID) != nil || !errors.Is(failed.Take(), spill.ErrClosed) {
		t.Fatal("Get from a closed store: the failed read was not kept for ReadErr")
	}
}

func mustSeq(t *testing.T, id string) uint64 {
	n, ok := idSeqOf(id)
	if !ok {
		t.Fatalf("%s spells no sequence", id)
	}
	return n
}

// Two creates race: the id made first is filed second. Both are found, on
// disk and in memory, and the book lists them in the order of their ids.
func TestIntentBookFilesAnIntentFiledLate(t *testing.T) {
	b, _, _ := testBook(t, 1)
	store := b.store
	var made []*Intent
	for range 4 {
		made = append(made, &Intent{Payment: core.Payment{ID: newID("pi"), State: core.StateNoMethod, Amount: 100, Currency: "usd"}, store: store})
	}
	for _, i := range []int{1, 0, 3, 2} {
		b.Add(made[i])
		b.unpin(made[i])
	}
	for _, want := range made {
		if got, err := b.peek(want.ID); err != nil || got == nil || got.ID != want.ID {
			t.Errorf("peek %s = %v, %v", want.ID, got, err)
		}
	}
	var order []string
	if err := b.each(func(pi *Intent) bool { order = append(order, pi.ID); return true }); err != nil {
		t.Fatal(err)
	}
	if want := []string{made[3].ID, made[2].ID, made[1].ID, made[0].ID}; !reflect.DeepEqual(order, want) {
		t.Errorf("newest first: %v, want %v", order, want)
	}
}

// testBook is a book on a store of its own that keeps keep intents in
// memory; failed gathers its failed reads.
func testBook(t *testing.T, keep int) (b *intentBook, disk *spill.Store, failed *spill.FirstErr) {
	disk = &spill.Store{Owner: "test"}
	t.Cleanup(func() { _ = disk.Close() })
	failed = &spill.FirstErr{}
	b = newIntentBook(disk, &versionStore{disk: disk}, failed)
	b.keep = keep
	return b, disk, failed
}

// A search version that cannot be read back names the version and the
// intent, and the PSP's ReadError keeps it.
func TestVersionUnreadableNamesIt(t *testing.T) {
	disk := &spill.Store{Owner: "test"}
	failed := &spill.FirstErr{}
	vs := &versionStore{disk: disk, failed: failed}
	ref, err := disk.Put([]byte(`{"id":"pi_1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := vs.json("pi_1", 1, ref); err != nil || string(got.(json.RawMessage)) != `{"id":"pi_1"}` {
		t.Fatalf("json = %v, %v", got, err)
	}
	if err := disk.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = vs.json("pi_1", 1, ref)
	if err == nil || !strings.HasPrefix(err.Error(), "fakepsp: version 2 of PaymentIntent pi_1 cannot be read back") {
		t.Fatalf("json from a closed store: %v; want the version named", err)
	}
	if kept := failed.Take(); kept == nil || kept.Error() != err.Error() {
		t.Fatalf("ReadError keeps %v, want %v", kept, err)
	}
}
