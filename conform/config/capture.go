package config

import "strings"

// capture validates the optional authorize and capture requests of the
// multi-step payment check S-capture. Authorize is a create that only
// authorizes (capture_method=manual at the PSP): it takes create's fields,
// and defaults to create itself for a service whose every payment is
// authorized first. Capture, like refund, is about a payment
// ({{payment_id}}) and is sent with a key when its key says where.
func (v *validator) capture() {
	c := v.c
	if c.Authorize != nil {
		if c.Capture == nil {
			v.bad("authorize", "needs capture: the authorize request is only sent by the capture check")
		}
		v.request("authorize", c.Authorize, true)
	}
	r := c.Capture
	if r == nil {
		return
	}
	if r.Method == "" {
		r.Method = "POST"
	}
	v.request("capture", r, false)
	if !strings.Contains(r.Path, "payment_id") {
		v.bad("capture.path", "must contain {{payment_id}}")
	}
	if r.Key.BodyField != "" && !strings.Contains(r.ContentType, "json") {
		v.bad("capture.key.body_field", "needs a JSON body (content_type %q)", r.ContentType)
	}
}

// AuthorizeRequest is the request that authorizes a payment for the capture
// check: authorize when set, else create.
func (c *Config) AuthorizeRequest() *Request {
	if c.Authorize != nil {
		return c.Authorize
	}
	return &c.Create
}
