package pspfront

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"unsafe"
)

// TestLogInternsMethodsAndPaths: exchanges of one method and path share one
// copy of each, and past maxNames distinct paths the table stops growing
// while every path still comes back exactly.
func TestLogInternsMethodsAndPaths(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, k := range []string{"k1", "k2"} {
		if _, err := post(t, f.URL(), k, "amount=1"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := f.log[0], f.log[1]
	if unsafe.StringData(a.path) != unsafe.StringData(b.path) || unsafe.StringData(a.method) != unsafe.StringData(b.method) {
		t.Fatalf("two exchanges of POST /v1/payment_intents keep two copies of the method or path")
	}
	for i := range maxNames + 10 {
		f.keep(Exchange{Method: "GET", Path: fmt.Sprintf("/v1/payment_intents/pi_%d", i), Status: 200})
	}
	if len(f.names) != maxNames {
		t.Fatalf("%d names interned, want the bound %d", len(f.names), maxNames)
	}
	xs := f.Exchanges()
	if last := xs[len(xs)-1]; last.Path != fmt.Sprintf("/v1/payment_intents/pi_%d", maxNames+9) || last.Method != "GET" || last.Status != 200 {
		t.Fatalf("the last exchange came back as %+v", last)
	}
}

// TestBodiesTheDiskRefusedStayInMemory: when the store cannot take an
// exchange's bodies they stay in memory and come back whole, and no read
// error is raised for them.
func TestBodiesTheDiskRefusedStayInMemory(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"id":"pi_7"}`)) }))
	defer up.Close()
	f, err := Start(up.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := post(t, f.URL(), "k1", "amount=1"); err != nil {
		t.Fatal(err)
	}
	if err := f.disk.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := post(t, f.URL(), "k2", "amount=2"); err != nil {
		t.Fatal(err)
	}
	xs := f.Exchanges()
	if len(xs) != 2 || xs[1].Key != "k2" || xs[1].Body != "amount=2\n" || xs[1].RespBody != `{"id":"pi_7"}` || xs[1].Status != 200 {
		t.Fatalf("exchanges %+v, want the second whole from memory", xs)
	}
	if xs[0].Key != "k1" || xs[0].Body != "" {
		t.Fatalf("the first exchange %+v, want its key and its unreadable bodies empty", xs[0])
	}
	if err := f.ReadError(); err == nil {
		t.Fatalf("no read error for the first exchange, whose store was closed")
	}
}
