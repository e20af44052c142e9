package probe

import (
	"fmt"

	"github.com/idemcheck/idemcheck/fakepsp"
	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// DefaultAdyenHMACKey signs the probe's event for a running service on
// Adyen unless --webhook-secret says otherwise: an HMAC key in Adyen's
// form (32 bytes of hex).
const DefaultAdyenHMACKey = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF"

// switchPSP: the service called another PSP's API than the fakepsp's.
type switchPSP struct{ psp, path string }

func (s *switchPSP) Error() string {
	return fmt.Sprintf("the service called %s, %s's API", s.path, s.psp)
}

func formats(psp string) core.Formats {
	d, err := fakepsp.Lookup(psp)
	if err != nil {
		return nil
	}
	f, _ := d.(core.Formats)
	return f
}

// webhookSecretFor is the secret the probe's fakepsp signs with: the one
// given, else the default in the PSP's own form.
func webhookSecretFor(o Options) string {
	if o.WebhookSecret != "" && o.WebhookSecret != DefaultWebhookSecret && o.WebhookSecret != DefaultAdyenHMACKey {
		return o.WebhookSecret
	}
	if o.PSP == "adyen" {
		return DefaultAdyenHMACKey
	}
	return DefaultWebhookSecret
}

// spoken names the PSP whose API the fakepsp's calls went to, when it is
// not the one the fakepsp speaks (its route answered "not found").
func (p *prober) spoken() *switchPSP {
	for _, c := range p.psp.Calls() {
		if name := fakepsp.Speaking(c.Path); name != "" && name != p.o.PSP {
			return &switchPSP{psp: name, path: c.Path}
		}
	}
	return nil
}
