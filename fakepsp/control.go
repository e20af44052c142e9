package fakepsp

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
	"github.com/stripe/stripe-go/v85"
)

// controlRoutes mounts the control API (core/control.go) over this PSP.
func (p *PSP) controlRoutes(mux *http.ServeMux) {
	core.ControlRoutes(mux, core.ControlHost{Enter: p.enter, Leave: p.leave,
		Info: func() map[string]any {
			return map[string]any{"url": p.url, "secret_key": p.firstKey, "webhook_secret": p.whSecret, "api_version": stripe.APIVersion}
		},
		Truth: p.truth, Log: p.dlog, NewAccount: p.NewAccount, Faults: p.faults, Pause: p.pause, Now: p.Now, Advance: p.Advance})
}
