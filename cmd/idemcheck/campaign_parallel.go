package main

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/conform/config"
)

// parallelRefused says why the seeds of one shard cannot run side by side
// against this config ("" when they can): two seeds at once must not share
// anything one seed's faults act on. A target idemcheck starts per run
// (target.command, on ports it picks), with the fakepsp it starts and links
// it makes itself, is a world of its own each run; a deployment is shared.
func parallelRefused(path string) string {
	c, err := config.Load(path)
	if err != nil {
		return "" // the run itself reports the config's error, with its line
	}
	var shared []string
	if len(c.Target.Command) == 0 {
		shared = append(shared, "target.command is not set (the service is one deployment, not one per run)")
	}
	if c.Target.Control != nil {
		shared = append(shared, "target.control drives processes idemcheck did not start")
	}
	if c.Effects.FakePSPURL != "" || c.Effects.FakePSPListen != "" {
		shared = append(shared, "the fakepsp is at a fixed address (effects.fakepsp_url or fakepsp_listen)")
	}
	if c.Proxy != nil && c.Proxy.API != "" {
		shared = append(shared, "the links are on a toxiproxy-server of yours (toxiproxy.api)")
	}
	if c.Proxy != nil {
		for _, l := range c.Proxy.Links {
			if l.Listen != "" {
				shared = append(shared, fmt.Sprintf("toxiproxy link %s listens at a fixed address", l.Name))
			}
		}
	}
	for _, u := range c.Target.BaseURLs {
		if !strings.Contains(u, "${PORT") {
			shared = append(shared, fmt.Sprintf("target.base_urls has %s, a fixed address", u))
			break
		}
	}
	if len(shared) == 0 {
		return ""
	}
	return strings.Join(shared, "; ")
}
