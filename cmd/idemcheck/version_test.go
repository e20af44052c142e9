package main

import (
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	cases := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"module version", debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}}, "v0.3.1"},
		{"checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T08:00:00Z"},
			{Key: "vcs.modified", Value: "true"}}}, "devel 0123456789ab-dirty (2026-12-01T08:00:00Z)"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"devel (no VCS revision in the build info; built by go test or go run outside a checkout)"},
	}
	for _, c := range cases {
		if got := describeBuild(&c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
