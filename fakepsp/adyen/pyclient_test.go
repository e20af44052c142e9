package adyen_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakepsp/adyen"
)

// pyAdyen is where ci/install-deps unpacks Adyen's Python library.
func pyAdyen(t *testing.T) string {
	dir := os.Getenv("IDEMCHECK_PYADYEN_HOME")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "idemcheck", "pyadyen-16.0.0")
	}
	if _, err := os.Stat(filepath.Join(dir, "Adyen", "client.py")); err != nil {
		t.Fatalf("Adyen's Python library is not at %s (run bash ci/install-deps): %v", dir, err)
	}
	return dir
}

// TestAdyensPythonLibraryTalksToTheFake: Adyen's official client pays,
// retries under the key, is refused, authorises, captures and refunds
// against fakepsp, and reads its errors as Adyen's: what a service on the
// library sees. The ground truth has exactly the two charges and one
// refund the steps made.
func TestAdyensPythonLibraryTalksToTheFake(t *testing.T) {
	g := newRig(t)
	cmd := exec.Command("python3", "testdata/client.py", g.p.URL()+"/v71", g.p.SecretKey())
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pyAdyen(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	steps := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a step: %q", line)
		}
		steps[m["step"].(string)] = m
	}
	want := map[string]string{
		"pay":       `status=200 result=Authorised`,
		"pay-again": `status=200 result=Authorised`,
		"refused":   `status=200 result=Refused reason=Refused`,
		"authorise": `status=200 result=Authorised`,
		"capture":   `status=201 result=received`,
		"refund":    `status=201 result=received`,
		"no-amount": `status=422 error=100 class=AdyenAPIUnprocessableEntity`,
		"bad-key":   `status=401 error=000 class=AdyenAPIAuthenticationError`,
	}
	for name, w := range want {
		m := steps[name]
		var got []string
		for _, f := range []string{"status", "result", "reason", "error", "class"} {
			if v, ok := m[f]; ok && v != "" {
				got = append(got, f+"="+strings.TrimSuffix(strings.TrimSuffix(jsonWord(v), ".0"), ""))
			}
		}
		if strings.Join(got, " ") != w {
			t.Errorf("%s: %s, want %s", name, strings.Join(got, " "), w)
		}
	}
	if steps["pay"]["psp"] != steps["pay-again"]["psp"] {
		t.Errorf("the retry under key-1 answered %v, the first %v", steps["pay-again"]["psp"], steps["pay"]["psp"])
	}
	if c, r := g.p.Charges(), g.p.Refunds(); len(c) != 2 || len(r) != 1 || *r[0].Input.Amount != 700 {
		t.Fatalf("%d charges and %d refunds, want 2 and 1 (of 700)", len(c), len(r))
	}
}

func jsonWord(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// adyenValidates asks Adyen's own validator (is_valid_hmac_notification)
// whether each batch's first item is signed with key; one line per batch.
func adyenValidates(t *testing.T, key string, batches ...[]byte) []string {
	t.Helper()
	script := `import json, sys
from Adyen.util import is_valid_hmac_notification
key = sys.argv[1]
for line in sys.stdin:
    print(is_valid_hmac_notification(json.loads(line), key))
`
	cmd := exec.Command("python3", "-c", script, key)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pyAdyen(t))
	var in strings.Builder
	for _, b := range batches {
		in.Write(b)
		in.WriteString("\n")
	}
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// sent is the body the webhook wire posts for n, signed with secret.
func sent(t *testing.T, n adyen.Notification, secret string) []byte {
	t.Helper()
	raw, _ := json.Marshal(n)
	req, err := adyen.Dialect{}.Webhooks().Request(context.Background(), "http://127.0.0.1:1/hook", raw, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(req.Body)
	return b
}

// TestAdyensLibraryValidatesOurSignatures: what fakepsp sends passes
// Adyen's own validator with the endpoint's key, and fails it with another
// key, with a changed amount, and unsigned.
func TestAdyensLibraryValidatesOurSignatures(t *testing.T) {
	key, other := adyen.NewHMACKey(), adyen.NewHMACKey()
	capture := adyen.Item{PSPReference: adyen.NewPSPReference(), OriginalReference: adyen.NewPSPReference(), MerchantAccountCode: "IdemcheckECOM",
		MerchantReference: "order-7", Amount: adyen.Amount{Value: 4200, Currency: "USD"}, EventCode: adyen.EventCapture, Success: "true",
		EventDate: adyen.EventDate(time.Now()), PaymentMethod: "visa"}
	refused := docsItem()
	refused.Success, refused.Reason = "false", "Refused"
	good := [][]byte{sent(t, adyen.Batch(docsItem()), key), sent(t, adyen.Batch(capture), key), sent(t, adyen.Batch(refused), key)}
	if got := adyenValidates(t, key, good...); strings.Join(got, " ") != "True True True" {
		t.Fatalf("Adyen's validator on fakepsp's signed items: %v, want True True True", got)
	}
	var tampered adyen.Notification
	_ = json.Unmarshal(good[1], &tampered)
	tampered.Items[0].Item.Amount.Value = 1
	forged, _ := json.Marshal(tampered)
	bad := [][]byte{sent(t, adyen.Batch(capture), other), forged}
	if got := adyenValidates(t, key, bad...); strings.Join(got, " ") != "False False" {
		t.Fatalf("Adyen's validator on a wrong key and a changed amount: %v, want False False", got)
	}
	var unsigned adyen.Notification
	_ = json.Unmarshal(sent(t, adyen.Batch(capture), ""), &unsigned)
	if _, ok := unsigned.Items[0].Item.AdditionalData["hmacSignature"]; ok {
		t.Fatal("an unsigned delivery carries an hmacSignature")
	}
	var signed adyen.Notification
	_ = json.Unmarshal(good[1], &signed)
	if !adyen.ValidSignature(signed.Items[0].Item, key) || adyen.ValidSignature(signed.Items[0].Item, other) || adyen.ValidSignature(tampered.Items[0].Item, key) {
		t.Fatal("ValidSignature disagrees with Adyen's validator")
	}
}

// docsItem is the example item of Adyen's HMAC page.
func docsItem() adyen.Item {
	return adyen.Item{PSPReference: "7914073381342284", MerchantAccountCode: "TestMerchant", MerchantReference: "TestPayment-1407325143704",
		Amount: adyen.Amount{Value: 1130, Currency: "EUR"}, EventCode: "AUTHORISATION", Success: "true"}
}
