package core

// FaultInfo is a fault as the control API shows it.
type FaultInfo struct {
	ID    string    `json:"id"`
	Kind  FaultKind `json:"kind"`
	Match Match     `json:"match"`
	Delay string    `json:"delay,omitempty"`
	Extra int       `json:"extra,omitempty"`
	Fired int64     `json:"fired"`
	Armed bool      `json:"armed"`
}

// Info describes the fault and how often it fired.
func (f *Fault) Info() FaultInfo {
	fi := FaultInfo{ID: f.id, Kind: f.spec.Kind, Match: f.spec.Match, Extra: f.spec.Extra, Fired: f.Fired(), Armed: f.active()}
	if f.spec.Delay > 0 {
		fi.Delay = f.spec.Delay.String()
	}
	return fi
}
