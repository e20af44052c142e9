package core_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// adyenLike is a dialect written only against core's exported API, to show
// the seam is sized for a PSP unlike Stripe: JSON notification batches
// whose HMAC-SHA256 (hex key, base64 result) sits inside each item over
// Adyen's field concatenation, received only on "[accepted]", and a
// 64-character Idempotency-Key kept 7 days. It is a sizing check, not
// Adyen's dialect (issue 52 builds that in fakepsp/adyen).
type adyenLike struct{}

func (adyenLike) Name() string { return "adyen-sizing-test" }
func (adyenLike) Keys() core.KeyRules {
	return core.KeyRules{Header: "Idempotency-Key", MaxLen: 64, Window: 7 * 24 * time.Hour}
}
func (adyenLike) Credential(r *http.Request) (string, bool) {
	k := r.Header.Get("X-API-Key")
	return k, k != ""
}
func (adyenLike) NewCredential() string { return "AQE" + strings.Repeat("0", 20) }
func (adyenLike) Refuse(r core.Refusal) core.Reply {
	status, code := http.StatusInternalServerError, "000"
	switch r.Kind {
	case core.RefuseNoCredential, core.RefuseBadCredential:
		status, code = http.StatusUnauthorized, "000"
	case core.RefuseKeyMismatch, core.RefuseKeyTooLong:
		status, code = http.StatusUnprocessableEntity, "704"
	case core.RefuseKeyInUse:
		status, code = http.StatusConflict, "704"
	}
	return core.Reply{Status: status, Body: map[string]any{"status": status, "errorCode": code, "message": "refused", "errorType": "validation"}}
}
func (adyenLike) Webhooks() core.WebhookWire { return adyenWire{} }

// Serve: this sizing dialect's API is the test server of
// dialect_ops_test.go, built on core.Ops directly.
func (adyenLike) Serve(core.Host) core.Server { return nil }

type adyenWire struct{}

// NewSecret is a fresh HMAC key, 32 bytes in hex as Adyen shows it.
func (adyenWire) NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type item struct {
	PSPReference        string `json:"pspReference"`
	OriginalReference   string `json:"originalReference"`
	MerchantAccountCode string `json:"merchantAccountCode"`
	MerchantReference   string `json:"merchantReference"`
	Amount              struct {
		Value    int64  `json:"value"`
		Currency string `json:"currency"`
	} `json:"amount"`
	EventCode      string            `json:"eventCode"`
	Success        string            `json:"success"`
	AdditionalData map[string]string `json:"additionalData,omitempty"`
}

type batch struct {
	Live  string `json:"live"`
	Items []struct {
		Item item `json:"NotificationRequestItem"`
	} `json:"notificationItems"`
}

func adyenHMAC(hexKey string, it item) string {
	key, _ := hex.DecodeString(hexKey)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join([]string{it.PSPReference, it.OriginalReference, it.MerchantAccountCode, it.MerchantReference,
		strconv.FormatInt(it.Amount.Value, 10), it.Amount.Currency, it.EventCode, it.Success}, ":")))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Request signs inside the body: each item gets its additionalData.hmacSignature.
func (adyenWire) Request(ctx context.Context, url string, body []byte, secret string, _ time.Time) (*http.Request, error) {
	var b batch
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	for i := range b.Items {
		it := &b.Items[i].Item
		delete(it.AdditionalData, "hmacSignature")
		if secret != "" {
			if it.AdditionalData == nil {
				it.AdditionalData = map[string]string{}
			}
			it.AdditionalData["hmacSignature"] = adyenHMAC(secret, *it)
		}
	}
	signed, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(signed))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, err
}

func (adyenWire) Accepted(a core.Answer) bool {
	return a.Status >= 200 && a.Status < 300 && strings.TrimSpace(string(a.Body)) == "[accepted]"
}

type notification struct{ id string }

func (n notification) EventID() string          { return n.id }
func (n notification) EventType() string        { return "AUTHORISATION" }
func (n notification) FaultTarget() core.Target { return core.Target{Key: n.id} }

// TestSeamFitsAnAdyenShapedDialect: the registry takes the dialect, and the
// delivery engine sends its batches signed its way; a receiver that checks
// the HMAC as Adyen documents accepts the valid copy, and refuses one signed
// with another key, which the engine does not count as received (its retry
// is due an hour later, on the schedule; it is not given up).
func TestSeamFitsAnAdyenShapedDialect(t *testing.T) {
	d := adyenLike{}
	if _, err := core.Lookup(d.Name()); err != nil { // -count=N runs this in one process
		core.Register(d)
	}
	got, err := core.Lookup(d.Name())
	if err != nil || got.Keys().MaxLen != 64 || got.Keys().TooLong(strings.Repeat("k", 64)) || !got.Keys().TooLong(strings.Repeat("k", 65)) {
		t.Fatalf("Lookup: %v %v", got, err)
	}
	secret := d.Webhooks().NewSecret()
	var mu sync.Mutex
	var answers []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b batch
		ok := json.Unmarshal(raw, &b) == nil && len(b.Items) == 1
		if ok {
			it := b.Items[0].Item
			sig := it.AdditionalData["hmacSignature"]
			it.AdditionalData = nil
			ok = sig != "" && hmac.Equal([]byte(sig), []byte(adyenHMAC(secret, it)))
		}
		mu.Lock()
		defer mu.Unlock()
		if !ok {
			answers = append(answers, "refused")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		answers = append(answers, "accepted")
		_, _ = w.Write([]byte("[accepted]"))
	}))
	defer srv.Close()

	body := []byte(`{"live":"false","notificationItems":[{"NotificationRequestItem":{"pspReference":"7914073381342284","originalReference":"","merchantAccountCode":"TestMerchant","merchantReference":"pay_1","amount":{"value":1130,"currency":"EUR"},"eventCode":"AUTHORISATION","success":"true"}}]}`)
	other := d.Webhooks().NewSecret()
	if other == secret {
		t.Fatal("two fresh secrets are equal")
	}
	signWith := map[string]string{"n1": secret, "n2": other} // n2: a key the receiver does not know
	log := &core.DeliveryLog{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := core.NewWorker(ctx, core.WorkerConfig{EndpointID: "ep", URL: srv.URL,
		Schedule: core.Schedule{Base: time.Hour, Factor: 2, Horizon: 72 * time.Hour, Timeout: 5 * time.Second},
		Faults:   core.NewFaults(func(bool) {}, nil), Pause: core.NewPauser(), Log: log,
		Send: func(ctx context.Context, c *http.Client, e core.Event) (core.Answer, error) {
			req, err := d.Webhooks().Request(ctx, srv.URL, body, signWith[e.EventID()], time.Now())
			if err != nil {
				return core.Answer{}, err
			}
			return core.Post(c, req)
		},
		Accepted: d.Webhooks().Accepted,
	})
	done := make(chan struct{})
	go func() { defer close(done); w.Run() }()
	defer func() { w.Stop(); <-done }()
	w.Enqueue(notification{"n1"})
	w.Enqueue(notification{"n2"})
	deadline := time.After(10 * time.Second)
	for {
		added := log.Added() // before counting, so no addition is missed
		if log.Len() >= 2 {
			break
		}
		select {
		case <-added:
		case <-deadline:
			t.Fatalf("deliveries after 10 s: %+v", log.All())
		}
	}
	ds := log.All()
	mu.Lock()
	defer mu.Unlock()
	if len(ds) != 2 || ds[0].EventID != "n1" || ds[0].Status != 200 || ds[1].EventID != "n2" || ds[1].Status != 401 || ds[1].GaveUp ||
		strings.Join(answers, ",") != "accepted,refused" {
		t.Fatalf("deliveries %+v, receiver %v: want n1 accepted, n2 refused", ds, answers)
	}
}
