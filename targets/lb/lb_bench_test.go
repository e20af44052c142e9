package lb

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/targets/storytime"
)

// BenchmarkForward is one request through the LB to a backend that echoes a
// small body, at 4 concurrent clients: the LB's own cost per request.
func BenchmarkForward(b *testing.B) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, r.Body)
	}))
	defer backend.Close()
	front := httptest.NewServer(New(&storytime.Clock{}, []string{backend.URL}, 64))
	defer front.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer hc.CloseIdleConnections()
	b.SetParallelism(2) // 2 x GOMAXPROCS clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := hc.Post(front.URL+"/payments", "application/json", strings.NewReader(`{"amount":3000}`))
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
