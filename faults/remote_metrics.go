package faults

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proxyBytes is one proxy's byte counters on a toxiproxy-server: received
// and sent, downstream (replies) and upstream (requests).
type proxyBytes struct{ recvDown, sentDown, recvUp int64 }

// metricsReader reads a toxiproxy-server's Prometheus page. The server serves
// it only when started with -proxy-metrics (or -runtime-metrics).
type metricsReader struct {
	url string
	hc  *http.Client

	mu     sync.Mutex
	status string // why the page is unusable; "" when it answered
	asked  bool
}

func newMetricsReader(url string) *metricsReader {
	return &metricsReader{url: url, hc: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}}
}

func (m *metricsReader) blind() string {
	m.mu.Lock()
	asked := m.asked
	m.mu.Unlock()
	if !asked {
		m.read("")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// read returns the counters of the proxy named name (zero when the server has
// counted none of its connections yet, or shows no metrics).
func (m *metricsReader) read(name string) proxyBytes {
	var out proxyBytes
	status := ""
	defer func() {
		m.mu.Lock()
		m.asked, m.status = true, status
		m.mu.Unlock()
	}()
	resp, err := m.hc.Get(m.url)
	if err != nil {
		status = fmt.Sprintf("GET %s: %v", m.url, err)
		return out
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		status = fmt.Sprintf("GET %s answered %s: start toxiproxy-server with -proxy-metrics, so that idemcheck can see what its faults caught", m.url, resp.Status)
		return out
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		metric, labels, v, ok := promLine(sc.Text())
		if !ok || labels["proxy"] != name {
			continue
		}
		down := labels["direction"] == "downstream"
		switch {
		case metric == "toxiproxy_proxy_received_bytes_total" && down:
			out.recvDown += v
		case metric == "toxiproxy_proxy_sent_bytes_total" && down:
			out.sentDown += v
		case metric == "toxiproxy_proxy_received_bytes_total":
			out.recvUp += v
		}
	}
	return out
}

// promLine parses one sample of Prometheus's text format:
// name{k="v",...} value.
func promLine(line string) (string, map[string]string, int64, bool) {
	if line == "" || line[0] == '#' {
		return "", nil, 0, false
	}
	open, end := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
	if open < 0 || end < open {
		return "", nil, 0, false
	}
	labels := map[string]string{}
	rest := line[open+1 : end]
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 || eq+1 >= len(rest) || rest[eq+1] != '"' {
			return "", nil, 0, false
		}
		k := strings.TrimLeft(rest[:eq], ", ")
		v, tail, ok := quoted(rest[eq+1:])
		if !ok {
			return "", nil, 0, false
		}
		labels[k], rest = v, strings.TrimLeft(tail, ",")
	}
	fields := strings.Fields(line[end+1:])
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	f, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", nil, 0, false
	}
	return line[:open], labels, int64(f), true
}

// quoted reads a "..." label value with its escapes; s begins at the quote.
func quoted(s string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] == 'n' {
					b.WriteByte('\n')
				} else {
					b.WriteByte(s[i])
				}
			}
		case '"':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", false
}
