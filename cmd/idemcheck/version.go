package main

import (
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=..."; when it
// is not, the build info names the module version (go install ...@vX) or the
// VCS revision (go build in a checkout), so a bug report can say which code ran.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build info)"
	}
	return describeBuild(info)
}

func describeBuild(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel (no VCS revision in the build info; built by go test or go run outside a checkout)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	out := "devel " + rev + dirty
	if when != "" {
		out += " (" + when + ")"
	}
	return out
}
