package scenario

import (
	"fmt"
	"math/rand/v2"

	"github.com/idemcheck/idemcheck/conform/config"
)

const keyAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// NewKey draws one idempotency key of the configured format: a UUID v4 by
// default (what the IETF draft and Stripe recommend, and all that some
// middlewares accept), or a prefix plus random characters of a fixed length.
func NewKey(r *rand.Rand, k config.Key) string {
	if k.Format == "random" {
		b := []byte(k.Prefix)
		for len(b) < k.Length {
			b = append(b, keyAlphabet[r.IntN(len(keyAlphabet))])
		}
		return string(b)
	}
	var u [16]byte
	for i := range u {
		u[i] = byte(r.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
