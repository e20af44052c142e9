package config

// searchLag checks effects.search_lag against converge_within, which it must
// leave room in.
func (v *validator) searchLag() {
	e := &v.c.Effects
	// Unset, it is bounded by a quarter of converge_within, which a short
	// test config shortens.
	def := min(DefaultSearchLag, v.c.converge/4)
	if !e.FakePSP {
		def = 0
	}
	v.dur("effects.search_lag", e.SearchLag, def, &v.c.searchLag)
	if e.SearchLag != "" && !e.FakePSP {
		v.bad("effects.search_lag", "needs fakepsp: true (for a fakepsp idemcheck does not start, give `idemcheck psp` its --search-lag)")
	}
	if v.c.searchLag < 0 || v.c.searchLag > v.c.converge/2 {
		v.bad("effects.search_lag", "%v: must be between 0s and half of converge_within (%v), so that a service which searches again can converge", v.c.searchLag, v.c.converge)
	}
}
