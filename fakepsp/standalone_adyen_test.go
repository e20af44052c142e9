package fakepsp

import (
	"bufio"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRunStandaloneAdyen: `idemcheck psp --dialect adyen` serves Adyen's
// Checkout API with an Adyen-shaped key and a 32-byte hex HMAC key, and
// retries on Adyen's table (no Stripe flag given).
func TestRunStandaloneAdyen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	code := make(chan int, 1)
	go func() { code <- RunStandalone(ctx, []string{"--dialect", "adyen"}, &out, &errOut) }()
	waitFor(t, "the printed keys", 5*time.Second, func() bool { return strings.Contains(out.String(), "webhook_secret=") })
	vals := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		vals[k] = v
	}
	if b, err := hex.DecodeString(vals["webhook_secret"]); err != nil || len(b) != 32 || !strings.HasPrefix(vals["secret_key"], "AQE") {
		t.Fatalf("printed: %q", out.String())
	}
	body := `{"amount":{"value":100,"currency":"EUR"},"reference":"o-1","merchantAccount":"IdemcheckECOM","paymentMethod":{"type":"scheme","number":"4111111145551142"}}`
	req, _ := http.NewRequest(http.MethodPost, vals["url"]+"/v71/payments", strings.NewReader(body))
	req.Header.Set("X-API-Key", vals["secret_key"])
	req.Header.Set("Idempotency-Key", "k-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"resultCode":"Authorised"`) {
		t.Fatalf("payment: %d %s", resp.StatusCode, raw)
	}
	if !strings.Contains(errOut.String(), "serving adyen's API at") {
		t.Fatalf("stderr: %s", errOut.String())
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errOut.String())
	}
}
