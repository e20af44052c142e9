package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// lookup finds the PaymentIntent an earlier copy's PSP call made under the
// payment id, by the metadata that call gave it, and returns its status (""
// when the PSP holds none). Asking again under the same idempotency key can
// never settle an unknown outcome: the PSP answers it with the first call's
// reply, a 500 included, for as long as it keeps the key.
func (s *Service) lookup(ctx context.Context, id string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	q := url.Values{"query": {fmt.Sprintf("metadata['payment_id']:'%s'", id)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.PSP+"/v1/payment_intents/search?"+q.Encode(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+s.PSPKey)
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return "", fmt.Errorf("psp search: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("psp search: %s %.200s %v", resp.Status, b, err)
	}
	var list struct {
		Data []struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return "", fmt.Errorf("psp search: %w", err)
	}
	if len(list.Data) == 0 {
		return "", nil
	}
	return list.Data[0].Status, nil
}
