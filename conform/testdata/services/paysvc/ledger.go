package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
)

// ledgerRow is one charge in the service's own ledger (a JSON line in
// STATE_DIR, so it survives restarts like a database table would).
type ledgerRow struct {
	OrderID   string `json:"order_id"`
	PaymentID string `json:"payment_id"`
	Amount    int64  `json:"amount"`
}

var ledgerMu sync.Mutex

// record appends the ledger row of one completed execution.
func (s *server) record(rec *record) {
	if s.ledgerLog == "" || s.noLedger {
		return
	}
	if s.outbox != nil {
		s.outbox.record(rec)
		return
	}
	ledgerMu.Lock()
	defer ledgerMu.Unlock()
	f, err := os.OpenFile(s.ledgerLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(ledgerRow{OrderID: rec.OrderID, PaymentID: rec.PaymentID, Amount: rec.Amount})
	_, _ = f.Write(append(b, '\n'))
	_ = f.Sync()
}

// ledger answers GET /ledger?order_id=X with {"data": [rows of X]}.
func (s *server) ledger(w http.ResponseWriter, r *http.Request) {
	want := r.URL.Query().Get("order_id")
	rows := []ledgerRow{}
	ledgerMu.Lock()
	f, err := os.Open(s.ledgerLog)
	if err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var row ledgerRow
			if json.Unmarshal(sc.Bytes(), &row) == nil && (want == "" || row.OrderID == want) {
				rows = append(rows, row)
			}
		}
		f.Close()
	}
	ledgerMu.Unlock()
	writeJSON(w, 200, map[string]any{"data": rows})
}

// searchCharge finds a succeeded PaymentIntent by the payment's metadata.
func (s *server) searchCharge(paymentID string) (string, bool) {
	if s.adyen {
		// Adyen has no payment search: the outcome stays unknown until its
		// AUTHORISATION notification or a retry under the key says it.
		return "", false
	}
	q := url.Values{"query": {"metadata['payment_id']:'" + paymentID + "'"}}
	req, err := http.NewRequest("GET", s.psp+"/v1/payment_intents/search?"+q.Encode(), nil)
	if err != nil {
		return "", false
	}
	req.Header.Set("Authorization", "Bearer "+s.pspKey)
	resp, err := s.client.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Data []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &out) != nil {
		return "", false
	}
	for _, pi := range out.Data {
		if pi.Status == "succeeded" {
			return pi.ID, true
		}
	}
	return "", false
}
