package fakepsp

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// controlRoutes mounts the control API (core/control.go) over this PSP.
func (p *PSP) controlRoutes(mux *http.ServeMux) {
	core.ControlRoutes(mux, core.ControlHost{Enter: p.enter, Leave: p.leave,
		Info: func() map[string]any {
			info := p.api.Info()
			info["url"], info["secret_key"], info["webhook_secret"] = p.url, p.firstKey, p.whSecret
			return info
		},
		Truth: p.truth, Log: p.dlog, NewAccount: p.NewAccount, Faults: p.faults, Pause: p.pause, Now: p.Now, Advance: p.Advance})
}
