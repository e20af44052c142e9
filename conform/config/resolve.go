package config

import "strings"

// resolve fills the resolve request's defaults: POST, and the create's key
// where it has none of its own, since RESOLVE asks about that very key.
func (v *validator) resolve() {
	r := v.c.Resolve
	if r == nil {
		return
	}
	if r.Method == "" {
		r.Method = "POST"
	}
	if r.Key.Header == "" && r.Key.BodyField == "" {
		r.Key.Header, r.Key.BodyField = v.c.Create.Key.Header, v.c.Create.Key.BodyField
	}
	if r.Key.BodyField != "" && r.Body == "" {
		r.Body = "{}"
	}
	v.request("resolve", r, false)
	if r.Key.Header != "" && r.Key.BodyField != "" {
		v.bad("resolve.key", "set header or body_field, not both")
	}
	if r.Key.BodyField != "" && !strings.Contains(r.ContentType, "json") {
		v.bad("resolve.key.body_field", "needs a JSON body (content_type %q)", r.ContentType)
	}
}
