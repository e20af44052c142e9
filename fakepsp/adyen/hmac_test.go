package adyen

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
)

// docsItem is the example item of Adyen's HMAC page, with its key.
var docsItem = Item{PSPReference: "7914073381342284", MerchantAccountCode: "TestMerchant", MerchantReference: "TestPayment-1407325143704",
	Amount: Amount{Value: 1130, Currency: "EUR"}, EventCode: "AUTHORISATION", Success: "true"}

const docsKey = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"

func TestSigningStringIsAdyensOrder(t *testing.T) {
	want := "7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true"
	if got := SigningString(docsItem); got != want {
		t.Fatalf("signing string %q, want %q", got, want)
	}
}

func TestSignatureOfTheDocsExample(t *testing.T) {
	got, err := Signature(docsItem, docsKey)
	if err != nil {
		t.Fatal(err)
	}
	if want := "coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0="; got != want {
		t.Fatalf("signature %q, want the docs' %q", got, want)
	}
	if _, err := Signature(docsItem, "not hex"); err == nil {
		t.Fatal("a key that is not hex signed")
	}
}

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
	if _, err := os.Stat(filepath.Join(dir, "Adyen", "util.py")); err != nil {
		t.Fatalf("Adyen's Python library is not at %s (run bash ci/install-deps): %v", dir, err)
	}
	return dir
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
func sent(t *testing.T, n Notification, secret string) []byte {
	t.Helper()
	raw, _ := json.Marshal(n)
	req, err := webhookWire{}.Request(context.Background(), "http://127.0.0.1:1/hook", raw, secret, time.Now())
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
	key, other := NewHMACKey(), NewHMACKey()
	capture := Item{PSPReference: NewPSPReference(), OriginalReference: NewPSPReference(), MerchantAccountCode: "IdemcheckECOM",
		MerchantReference: "order-7", Amount: Amount{Value: 4200, Currency: "USD"}, EventCode: EventCapture, Success: "true",
		EventDate: EventDate(time.Now()), PaymentMethod: "visa"}
	refused := docsItem
	refused.Success, refused.Reason = "false", "Refused"
	good := [][]byte{sent(t, Batch(docsItem), key), sent(t, Batch(capture), key), sent(t, Batch(refused), key)}
	if got := adyenValidates(t, key, good...); strings.Join(got, " ") != "True True True" {
		t.Fatalf("Adyen's validator on fakepsp's signed items: %v, want True True True", got)
	}
	var tampered Notification
	_ = json.Unmarshal(good[1], &tampered)
	tampered.Items[0].Item.Amount.Value = 1
	forged, _ := json.Marshal(tampered)
	bad := [][]byte{sent(t, Batch(capture), other), forged}
	if got := adyenValidates(t, key, bad...); strings.Join(got, " ") != "False False" {
		t.Fatalf("Adyen's validator on a wrong key and a changed amount: %v, want False False", got)
	}
	var unsigned Notification
	_ = json.Unmarshal(sent(t, Batch(capture), ""), &unsigned)
	if _, ok := unsigned.Items[0].Item.AdditionalData["hmacSignature"]; ok {
		t.Fatal("an unsigned delivery carries an hmacSignature")
	}
	var signed Notification
	_ = json.Unmarshal(good[1], &signed)
	if !ValidSignature(signed.Items[0].Item, key) || ValidSignature(signed.Items[0].Item, other) || ValidSignature(tampered.Items[0].Item, key) {
		t.Fatal("ValidSignature disagrees with Adyen's validator")
	}
}
