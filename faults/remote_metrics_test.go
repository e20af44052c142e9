package faults

import "testing"

// TestPromLine: a sample of Prometheus's text format is read with its
// labels, escapes included; comments and malformed lines are not samples.
func TestPromLine(t *testing.T) {
	m, l, v, ok := promLine(`toxiproxy_proxy_received_bytes_total{direction="downstream",listener="127.0.0.1:5",proxy="idemcheck-1-ab-DB",upstream="a\"b\\c"} 1.5e+06`)
	if !ok || m != "toxiproxy_proxy_received_bytes_total" || v != 1500000 || l["direction"] != "downstream" || l["proxy"] != "idemcheck-1-ab-DB" || l["upstream"] != `a"b\c` {
		t.Fatalf("got %q %v %d %t", m, l, v, ok)
	}
	for _, bad := range []string{"", "# HELP x y", `x{a="b"}`, `x{a=b} 1`, `x{a="b} 1`, "x 1"} {
		if _, _, _, ok := promLine(bad); ok {
			t.Errorf("%q read as a sample", bad)
		}
	}
}
