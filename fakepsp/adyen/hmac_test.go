package adyen

import "testing"

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
