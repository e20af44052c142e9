package api

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseRequestRejectsBadInput(t *testing.T) {
	for body, want := range map[string]string{
		`{"order_id":"42","amount":3000,`:                                            "malformed JSON",
		`{"order_id":"42","amount":3000,"currency":"USD","payment_method":"pm_1"} x`: "malformed JSON",
		`{"amount":3000,"currency":"USD","payment_method":"pm_1"}`:                   `"order_id" is required`,
		`{"order_id":"42","amount":-1,"currency":"USD","payment_method":"pm_1"}`:     `must be positive`,
		`{"order_id":"42","amount":0,"currency":"USD","payment_method":"pm_1"}`:      `must be positive`,
		`{"order_id":"42","amount":1.5,"currency":"USD","payment_method":"pm_1"}`:    `must be an integer`,
		`{"order_id":"42","amount":"30","currency":"USD","payment_method":"pm_1"}`:   `must be an integer`,
		`{"order_id":"42","amount":30,"currency":"usd","payment_method":"pm_1"}`:     `unknown currency`,
		`{"order_id":"42","amount":30,"currency":"USD"}`:                             `"payment_method" is required`,
		`[1,2]`: "malformed JSON",
	} {
		_, err := ParseRequest([]byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRequest(%s) = %v, want error containing %q", body, err, want)
		}
	}
}

func TestFingerprintIsTheMeaning(t *testing.T) {
	a, err := ParseRequest([]byte(`{"order_id":"42","amount":3000,"currency":"USD","payment_method":"pm_1"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseRequest([]byte(`{"payment_method":"pm_1","client_ts":"x","currency":"USD","amount":3000,"order_id":"42"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := ParseRequest([]byte(`{"order_id":"42","amount":3500,"currency":"USD","payment_method":"pm_1"}`))
	if Fingerprint(a) != Fingerprint(b) {
		t.Error("a reordered body with an extra field changed the fingerprint")
	}
	if Fingerprint(a) == Fingerprint(c) {
		t.Error("a different amount kept the fingerprint")
	}
	if RawFingerprint([]byte(`{"a":1,"b":2}`)) == RawFingerprint([]byte(`{"b":2,"a":1}`)) {
		t.Error("raw fingerprint ignored byte order")
	}
}

func TestIDsAreDerived(t *testing.T) {
	s := Scope("u1", "K1", true)
	if s != "payments:u1:K1" || Scope("u1", "K1", false) != "payments:K1" {
		t.Fatalf("scope %q", s)
	}
	if PaymentID(s) != PaymentID("payments:u1:K1") || PaymentID(s) == PaymentID(Scope("u2", "K1", true)) {
		t.Fatal("payment id not derived from the scope alone")
	}
	if ChargeKey("pay_7") != "pay_7:charge" || RefundKey("pay_7") != "pay_7:cancel:refund" {
		t.Fatal("derived PSP keys")
	}
}

// TestPlainStringAgreesWithEncodingJSON: the fast path reads what
// encoding/json reads, and declines everything it does not handle itself.
func TestPlainStringAgreesWithEncodingJSON(t *testing.T) {
	for _, v := range []string{`"42"`, `"pm_card_visa"`, `""`, `"a\"b"`, `"a\\b"`, `"\u0041"`, `"é"`, `42`, `null`, `"x`, `"a` + "\t" + `b"`, `["a"]`} {
		s, ok := plainString([]byte(v))
		var want string
		err := json.Unmarshal([]byte(v), &want)
		if ok && (err != nil || s != want) {
			t.Errorf("plainString(%s) = %q, encoding/json says %q (%v)", v, s, want, err)
		}
		if !ok && err == nil && want != "" && !strings.ContainsAny(v, "\\\té") {
			t.Errorf("plainString(%s) declined a plain string", v)
		}
	}
}
