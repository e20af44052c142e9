package stripe

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// Params are a request's parameters as Stripe's form encoding writes them
// (metadata[k]=v, expand[0]=x), from the query string or the form body, so
// one fingerprint compares them all.
type Params struct{ v url.Values }

const maxBody = 1 << 20

// ReadParams decodes the query string (GET/DELETE) or the body (POST). Stripe
// reads only form-encoded bodies: a JSON body (or any other type) is refused
// as Stripe refuses it, before anything runs, so a client that would fail
// against Stripe fails here too.
func ReadParams(r *http.Request) (Params, *core.Reply) {
	if r.Method != http.MethodPost {
		v, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			e := InvalidParam("", "Invalid query string: "+err.Error())
			return Params{}, &e
		}
		return Params{own(v)}, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		e := InvalidParam("", "Could not read the request body: "+err.Error())
		return Params{}, &e
	}
	if len(body) > maxBody {
		e := InvalidParam("", "Request body too large.")
		return Params{}, &e
	}
	if raw := r.Header.Get("Content-Type"); raw != "" {
		ct, _, _ := mime.ParseMediaType(raw)
		if ct != "application/x-www-form-urlencoded" {
			e := unsupportedContentType(raw)
			return Params{}, &e
		}
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		e := InvalidParam("", "Invalid form-encoded body: "+err.Error())
		return Params{}, &e
	}
	return Params{own(v)}, nil
}

// own gives every value its own bytes: a value parsed without escapes is
// a slice of the whole body (or request line), and an intent keeps some
// (its metadata, method, currency) for the PSP's life (issue 54).
func own(v url.Values) url.Values {
	for _, vs := range v {
		for i := range vs {
			vs[i] = strings.Clone(vs[i])
		}
	}
	return v
}

// unsupportedContentType is Stripe's answer to a body that is not form
// encoded (seen from the live API for text/plain; the same for JSON).
func unsupportedContentType(ct string) core.Reply {
	return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error",
		Message: "Invalid request: unsupported Content-Type " + ct + ". If error persists and you need assistance, please contact support@stripe.com."})
}

// Values are the parameters as decoded; callers read them, never write.
func (p Params) Values() url.Values { return p.v }

// Fingerprint is the canonical form of the parameters (sorted keys).
func (p Params) Fingerprint() string { return p.v.Encode() }

func (p Params) Has(k string) bool { _, ok := p.v[k]; return ok }

func (p Params) Str(k string) string { return p.v.Get(k) }

// Int64 parses an integer parameter; present is false when it is absent.
func (p Params) Int64(k string) (n int64, present bool, bad *core.Reply) {
	s, ok := p.v[k]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s[0]), 10, 64)
	if err != nil {
		e := InvalidParam(k, "Invalid integer: "+s[0])
		return 0, true, &e
	}
	return n, true, nil
}

// Bool parses a boolean parameter (absent = false).
func (p Params) Bool(k string) (bool, *core.Reply) {
	s, ok := p.v[k]
	if !ok || s[0] == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s[0])
	if err != nil {
		e := InvalidParam(k, "Invalid boolean: "+s[0])
		return false, &e
	}
	return b, nil
}

// Metadata collects metadata[k]=v; Stripe's limits: 50 keys, key 40 chars,
// value 500 chars.
func (p Params) Metadata() (map[string]string, *core.Reply) {
	md := map[string]string{}
	for k, vs := range p.v {
		if !strings.HasPrefix(k, "metadata[") || !strings.HasSuffix(k, "]") {
			continue
		}
		name := k[len("metadata[") : len(k)-1]
		if name == "" || len(name) > 40 {
			e := InvalidParam(k, "Metadata keys must be 1 to 40 characters long.")
			return nil, &e
		}
		if len(vs[0]) > 500 {
			e := InvalidParam(k, "Metadata values can have up to 500 characters.")
			return nil, &e
		}
		if vs[0] != "" { // an empty value unsets a key in Stripe
			md[strings.Clone(name)] = vs[0] // not the whole parameter's name
		}
	}
	if len(md) > 50 {
		e := InvalidParam("metadata", "Metadata can have up to 50 keys.")
		return nil, &e
	}
	return md, nil
}

// Array collects name[]=x or name[0]=x, name[1]=y in index order.
func (p Params) Array(name string) []string {
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

// CaptureMethod reads capture_method (dflt when absent); automatic_async
// captures at once too.
func (p Params) CaptureMethod(dflt string) (string, *core.Reply) {
	switch m := p.Str("capture_method"); m {
	case "":
		return dflt, nil
	case "automatic":
		return "automatic", nil // the constant, not the request's copy: kept per intent
	case "automatic_async":
		return "automatic_async", nil
	case "manual":
		return "manual", nil
	default:
		e := InvalidParam("capture_method", "Invalid capture_method: must be one of automatic, automatic_async, or manual")
		return "", &e
	}
}

// MetadataUpdate reads metadata for an update (core.Payment.UpdateMetadata): an empty value unsets its
// key, and metadata= (empty) unsets them all (the "" key in the result).
func (p Params) MetadataUpdate() (map[string]*string, *core.Reply) {
	if _, bad := p.Metadata(); bad != nil {
		return nil, bad
	}
	out := map[string]*string{}
	if p.Has("metadata") && p.Str("metadata") == "" {
		out[""] = nil
	}
	for k, vs := range p.Values() {
		if name, ok := strings.CutPrefix(k, "metadata["); ok && strings.HasSuffix(name, "]") {
			name = strings.TrimSuffix(name, "]")
			if vs[0] == "" {
				out[name] = nil
			} else {
				v := vs[0]
				out[name] = &v
			}
		}
	}
	return out, nil
}
