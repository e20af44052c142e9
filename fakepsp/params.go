package fakepsp

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// params are a request's parameters as Stripe's form encoding writes them
// (metadata[k]=v, expand[0]=x), from the query string or the form body, so
// one fingerprint compares them all.
type params struct{ v url.Values }

const maxBody = 1 << 20

// readParams decodes the query string (GET/DELETE) or the body (POST). Stripe
// reads only form-encoded bodies: a JSON body (or any other type) is refused
// as Stripe refuses it, before anything runs, so a client that would fail
// against Stripe fails here too.
func readParams(r *http.Request) (params, *response) {
	if r.Method != http.MethodPost {
		v, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			e := invalidParam("", "Invalid query string: "+err.Error())
			return params{}, &e
		}
		return params{v}, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		e := invalidParam("", "Could not read the request body: "+err.Error())
		return params{}, &e
	}
	if len(body) > maxBody {
		e := invalidParam("", "Request body too large.")
		return params{}, &e
	}
	if raw := r.Header.Get("Content-Type"); raw != "" {
		ct, _, _ := mime.ParseMediaType(raw)
		if ct != "application/x-www-form-urlencoded" {
			e := unsupportedContentType(raw)
			return params{}, &e
		}
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		e := invalidParam("", "Invalid form-encoded body: "+err.Error())
		return params{}, &e
	}
	return params{v}, nil
}

// unsupportedContentType is Stripe's answer to a body that is not form
// encoded (seen from the live API for text/plain; the same for JSON).
func unsupportedContentType(ct string) response {
	return errResp(http.StatusBadRequest, stripeError{Type: "invalid_request_error",
		Message: "Invalid request: unsupported Content-Type " + ct + ". If error persists and you need assistance, please contact support@stripe.com."})
}

// fingerprint is the canonical form of the parameters (sorted keys).
func (p params) fingerprint() string { return p.v.Encode() }

func (p params) has(k string) bool { _, ok := p.v[k]; return ok }

func (p params) str(k string) string { return p.v.Get(k) }

// int64 parses an integer parameter; present is false when it is absent.
func (p params) int64(k string) (n int64, present bool, bad *response) {
	s, ok := p.v[k]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s[0]), 10, 64)
	if err != nil {
		e := invalidParam(k, "Invalid integer: "+s[0])
		return 0, true, &e
	}
	return n, true, nil
}

// boolean parses a boolean parameter (absent = false).
func (p params) boolean(k string) (bool, *response) {
	s, ok := p.v[k]
	if !ok || s[0] == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s[0])
	if err != nil {
		e := invalidParam(k, "Invalid boolean: "+s[0])
		return false, &e
	}
	return b, nil
}

// metadata collects metadata[k]=v; Stripe's limits: 50 keys, key 40 chars,
// value 500 chars.
func (p params) metadata() (map[string]string, *response) {
	md := map[string]string{}
	for k, vs := range p.v {
		if !strings.HasPrefix(k, "metadata[") || !strings.HasSuffix(k, "]") {
			continue
		}
		name := k[len("metadata[") : len(k)-1]
		if name == "" || len(name) > 40 {
			e := invalidParam(k, "Metadata keys must be 1 to 40 characters long.")
			return nil, &e
		}
		if len(vs[0]) > 500 {
			e := invalidParam(k, "Metadata values can have up to 500 characters.")
			return nil, &e
		}
		if vs[0] != "" { // an empty value unsets a key in Stripe
			md[name] = vs[0]
		}
	}
	if len(md) > 50 {
		e := invalidParam("metadata", "Metadata can have up to 50 keys.")
		return nil, &e
	}
	return md, nil
}

// array collects name[]=x or name[0]=x, name[1]=y in index order.
func (p params) array(name string) []string {
	out := append([]string(nil), p.v[name+"[]"]...)
	type iv struct {
		i int
		v string
	}
	var idx []iv
	for k, vs := range p.v {
		if !strings.HasPrefix(k, name+"[") || !strings.HasSuffix(k, "]") {
			continue
		}
		i, err := strconv.Atoi(k[len(name)+1 : len(k)-1])
		if err == nil {
			idx = append(idx, iv{i, vs[0]})
		}
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a].i < idx[b].i })
	for _, x := range idx {
		out = append(out, x.v)
	}
	return out
}
