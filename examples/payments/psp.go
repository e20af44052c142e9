package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// charge creates and confirms a PaymentIntent under the payment id as the
// PSP's idempotency key. It reports whether the PSP charged; an error means
// the outcome is unknown (no answer, or a 5xx).
func (s *Service) charge(ctx context.Context, id string, req request) (bool, error) {
	timeout := s.PSPTimeout
	if timeout == 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f := url.Values{}
	f.Set("amount", strconv.FormatInt(req.Amount, 10))
	f.Set("currency", strings.ToLower(req.Currency))
	f.Set("payment_method", "pm_card_visa")
	f.Set("confirm", "true")
	f.Set("metadata[payment_id]", id)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, s.PSP+"/v1/payment_intents", strings.NewReader(f.Encode()))
	if err != nil {
		return false, err
	}
	// No GetBody: net/http must not resend a charge on its own.
	hreq.GetBody = nil
	hreq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hreq.Header.Set("Authorization", "Bearer "+s.PSPKey)
	hreq.Header.Set("Idempotency-Key", id)
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(hreq)
	if err != nil {
		return false, fmt.Errorf("psp: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return false, fmt.Errorf("psp: reading the reply: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusPaymentRequired:
		return false, nil // a decline: nothing charged
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("psp: %s %s", resp.Status, b)
	}
	var pi struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(b, &pi); err != nil {
		return false, fmt.Errorf("psp: %w", err)
	}
	return pi.Status == "succeeded", nil
}
