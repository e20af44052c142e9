package config

import (
	"errors"
	"strings"
	"testing"
)

// TestDeploymentFieldsAreChecked: fakepsp_url, toxiproxy.api and a link's
// listen address are refused with an error on their own field when wrong,
// and accepted when right.
func TestDeploymentFieldsAreChecked(t *testing.T) {
	base := "  fakepsp: true\n"
	if !strings.Contains(Starter, base) {
		t.Fatalf("starter lacks %q", base)
	}
	link := func(api, listen string) string {
		s := "toxiproxy:\n"
		if api != "" {
			s += "  api: " + api + "\n"
		}
		return s + "  links:\n    - {name: DB, upstream: \"db:5432\", listen: \"" + listen + "\"}\n"
	}
	cases := []struct {
		name, effects, extra string
		field, says          string // "" when the config is valid
	}{
		{"a remote fakepsp", "  fakepsp_url: http://fakepsp:12111\n", "", "", ""},
		{"fakepsp_url not a URL", "  fakepsp_url: fakepsp:12111\n", "", "effects.fakepsp_url", "idemcheck psp"},
		{"fakepsp_url with a path", "  fakepsp_url: http://fakepsp:12111/v1\n", "", "effects.fakepsp_url", "base URL"},
		{"both fakepsps", base + "  fakepsp_url: http://fakepsp:12111\n", "", "effects", "exactly one"},
		{"the user's toxiproxy", base, link("http://toxiproxy:8474", "0.0.0.0:15432"), "", ""},
		{"toxiproxy.api not a URL", base, link("toxiproxy:8474", "0.0.0.0:15432"), "toxiproxy.api", "toxiproxy-server"},
		{"a wide listen on the embedded proxy", base, link("", "0.0.0.0:15432"), "toxiproxy.links[0].listen", "toxiproxy.api"},
		{"a loopback listen on the embedded proxy", base, link("", "127.0.0.1:15432"), "", ""},
		{"a listen without a port", base, link("http://toxiproxy:8474", "toxiproxy"), "toxiproxy.links[0].listen", "host:port"},
		{"bursts off", base, link("", "") + "  bursts: off\n", "", ""},
		{"bursts neither on nor off", base, link("", "") + "  bursts: sometimes\n", "toxiproxy.bursts", "on or off"},
		{"a webhook on a remote fakepsp", "  fakepsp_url: http://fakepsp:12111\n", "webhook:\n  path: /webhooks\n", "webhook", "fakepsp_url"},
	}
	for _, tc := range cases {
		text := strings.Replace(Starter, base, tc.effects, 1) + tc.extra
		_, err := Parse("cfg.yaml", []byte(text))
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var es Errors
		if !errors.As(err, &es) {
			t.Errorf("%s: got %v, want an error on %s", tc.name, err, tc.field)
			continue
		}
		found := false
		for _, e := range es {
			if e.Field == tc.field && strings.Contains(e.Error(), tc.says) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: got %v, want an error on %s saying %q", tc.name, err, tc.field, tc.says)
		}
	}
}
