package storytime

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestClockOffsetOverAdmin(t *testing.T) {
	var c Clock
	mux := http.NewServeMux()
	mux.Handle(ClockPath, c.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	before := time.Now()
	if err := SetOffset(srv.URL, time.Hour); err != nil {
		t.Fatal(err)
	}
	if d := c.Now().Sub(before); d < time.Hour || d > time.Hour+time.Second {
		t.Fatalf("offset over admin moved the clock by %v", d)
	}
	c.Advance(time.Hour)
	if c.Offset() != 2*time.Hour {
		t.Fatalf("offset %v", c.Offset())
	}
	if D(5) != 5*Scale {
		t.Fatalf("D(5) = %v", D(5))
	}
}
