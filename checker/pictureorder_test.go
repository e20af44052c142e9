package checker

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checker/history"
)

// zombieCharge is a double charge whose picture has two partial
// linearizations of the same length (the two charges answer at the same
// instant), the tie porcupine lists either way round from run to run.
const zombieCharge = `{"process":"psp-3","op":"charge","call":67204,"return":67206,"payment_id":"pay_4907","input":{"amount":6494,"psp_key":"pay_4907:charge","metadata":{"payment_id":"pay_4907"}},"output":{"charge_id":"ch_pay_4907"}}
{"process":"retry-3","op":"create","call":67204,"return":67212,"intent":"payments:u4907:K1","input":{"fingerprint":"fp4907","amount":6494,"currency":"USD"},"output":{"outcome":"in_progress","payment_id":"pay_4907"}}
{"process":"phone-3","op":"create","call":67202,"return":67222,"intent":"payments:u4907:K1","input":{"fingerprint":"fp4907","amount":6494,"currency":"USD"},"output":{"outcome":"succeeded","payment_id":"pay_4907"}}
{"process":"psp-zombie","op":"charge","call":67204,"return":67206,"payment_id":"pay_4907","input":{"amount":6494,"psp_key":"pay_4907:R2:1","metadata":{"payment_id":"pay_4907"}},"output":{"charge_id":"ch_pay_4907"}}
`

// TestPictureSameEveryTime: the same history gives the same picture. A
// range over a two-entry map starts at a random one of a group's eight
// slots, so porcupine swaps this tie about one drawing in eight: without the
// fixed order, 200 drawings all alike have odds of (7/8)^199, about 3e-12.
func TestPictureSameEveryTime(t *testing.T) {
	h, err := history.ReadJSONL(strings.NewReader(zombieCharge))
	if err != nil {
		t.Fatal(err)
	}
	res := Check(h, CheckOptions{})
	if res.OK() {
		t.Fatal("want the double charge found")
	}
	var first map[string][]byte
	for i := 0; i < 200; i++ {
		dir := t.TempDir()
		paths, err := res.WriteHTML(dir)
		if err != nil || len(paths) == 0 {
			t.Fatalf("pictures %v: %v", paths, err)
		}
		pages := map[string][]byte{}
		for _, p := range paths {
			if pages[filepath.Base(p)], err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		if first == nil {
			first = pages
			continue
		}
		for name, page := range first {
			if !bytes.Equal(pages[name], page) {
				t.Fatalf("drawing %d: picture %s differs:\n%s", i, name, firstDiff(string(pages[name]), string(page)))
			}
		}
	}
}

// TestOrderPicture: partial linearizations come out longest first, equal
// lengths by their op indices, Largest recomputed over that order, and
// nothing else on the page changed.
func TestOrderPicture(t *testing.T) {
	page := func(data string) []byte {
		return []byte("<script>\n      const data = " + data + "\n\n      render(data)\n</script>")
	}
	in := page(`{"Partitions":[{"History":[{"x":"\u003c"}],"PartialLinearizations":[` +
		`[{"Index":1,"StateDescription":"b"},{"Index":2,"StateDescription":"c"}],` +
		`[{"Index":3,"StateDescription":"d"}],` +
		`[{"Index":0,"StateDescription":"a"},{"Index":2,"StateDescription":"c"}]],` +
		`"Largest":{"0":2,"1":0,"2":0,"3":1}}],"Annotations":[{"Tag":"t"}]}`)
	want := page(`{"Partitions":[{"History":[{"x":"\u003c"}],"PartialLinearizations":[` +
		`[{"Index":0,"StateDescription":"a"},{"Index":2,"StateDescription":"c"}],` +
		`[{"Index":1,"StateDescription":"b"},{"Index":2,"StateDescription":"c"}],` +
		`[{"Index":3,"StateDescription":"d"}]],` +
		`"Largest":{"0":0,"1":1,"2":0,"3":2}}],"Annotations":[{"Tag":"t"}]}`)
	got, err := orderPicture(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if again, _ := orderPicture(got); !bytes.Equal(again, got) {
		t.Fatalf("ordering twice changed the page:\n%s", again)
	}
	if _, err := orderPicture([]byte("<script>render()</script>")); err == nil {
		t.Fatal("a page without its data: want an error")
	}
}
