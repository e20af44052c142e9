package adyen

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// SigningString is the text Adyen signs for an item: pspReference,
// originalReference, merchantAccountCode, merchantReference, amount value,
// amount currency, eventCode and success, joined by ':' (an absent field
// is empty).
func SigningString(it Item) string {
	return strings.Join([]string{it.PSPReference, it.OriginalReference, it.MerchantAccountCode, it.MerchantReference,
		strconv.FormatInt(it.Amount.Value, 10), it.Amount.Currency, it.EventCode, it.Success}, ":")
}

// Signature is the item's HMAC-SHA256 under the hex key, base64-encoded.
func Signature(it Item, hexKey string) (string, error) {
	key, err := hex.DecodeString(hexKey)
	if err != nil {
		return "", fmt.Errorf("adyen: the HMAC key is not hex: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(SigningString(it)))
	return base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// SignItem puts the item's signature in additionalData.hmacSignature.
func SignItem(it *Item, hexKey string) error {
	sig, err := Signature(*it, hexKey)
	if err != nil {
		return err
	}
	ad := map[string]string{}
	for k, v := range it.AdditionalData {
		ad[k] = v
	}
	ad["hmacSignature"] = sig
	it.AdditionalData = ad
	return nil
}

// ValidSignature says whether the item carries the signature hexKey makes.
func ValidSignature(it Item, hexKey string) bool {
	got := it.AdditionalData["hmacSignature"]
	want, err := Signature(it, hexKey)
	return err == nil && got != "" && hmac.Equal([]byte(got), []byte(want))
}

// NewHMACKey is a fresh 32-byte key in upper-case hex.
func NewHMACKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}
