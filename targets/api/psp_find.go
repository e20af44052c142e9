package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// FindCharge looks for the PSP's own record of a payment by the payment id
// the reference puts in every charge's metadata (Stripe's PaymentIntent
// search). It is the way out when replaying the derived key cannot settle a
// payment: Stripe saves a 500 answered after the charge under the key and
// replays that 500 for 24 h (docs/PITFALLS.md#stripe), so only a read of the PaymentIntent
// itself can tell that the money moved.
//
// Succeeded carries the charge; Failed means the PSP recorded a declined
// attempt and no charge. Anything else, nothing found included, is Unknown:
// search is not read-after-write, so "not found" never proves "not charged".
func (p *PSP) FindCharge(ctx context.Context, paymentID string) (Result, error) {
	q := url.Values{"query": {"metadata['payment_id']:'" + strings.ReplaceAll(paymentID, "'", `\'`) + "'"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Base+"/v1/payment_intents/search?"+q.Encode(), nil)
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Authorization", "Bearer "+p.Secret)
	resp, err := p.HC.Do(req)
	if err != nil {
		return Result{Verdict: Unknown, Message: err.Error()}, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return Result{Verdict: Unknown, Status: resp.StatusCode, Message: "search: " + errMessage(b)}, nil
	}
	var body struct {
		Data []struct {
			ID               string            `json:"id"`
			Status           string            `json:"status"`
			LatestCharge     string            `json:"latest_charge"`
			Metadata         map[string]string `json:"metadata"`
			LastPaymentError *json.RawMessage  `json:"last_payment_error"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return Result{Verdict: Unknown, Status: resp.StatusCode, Message: "search: undecodable reply: " + err.Error()}, nil
	}
	res := Result{Verdict: Unknown, Status: resp.StatusCode, Message: "search: no PaymentIntent with metadata payment_id " + paymentID}
	for _, pi := range body.Data {
		if pi.Metadata["payment_id"] != paymentID {
			continue // the PSP's search matched loosely: not ours
		}
		switch {
		case pi.Status == "succeeded":
			// A charge wins over a declined attempt found beside it.
			res = Result{Verdict: Succeeded, Status: resp.StatusCode, ChargeID: pi.LatestCharge}
			if res.ChargeID == "" {
				res.ChargeID = pi.ID
			}
			return res, nil
		case pi.Status == "requires_payment_method" && pi.LastPaymentError != nil && string(*pi.LastPaymentError) != "null":
			// The confirm was attempted and declined: no money moved.
			res = Result{Verdict: Failed, Status: resp.StatusCode, Message: "search: " + pi.ID + " declined"}
		default:
			if res.Verdict == Unknown {
				res.Message = "search: " + pi.ID + " is " + pi.Status
			}
		}
	}
	return res, nil
}
