// Package all registers every tier of the reference stack: import it for its
// side effects in any binary that must be able to become a tier (the CLI, a
// suite's test binary). Other tiers append one blank import each.
package all

import (
	_ "github.com/idemcheck/idemcheck/targets/api"       // api
	_ "github.com/idemcheck/idemcheck/targets/connector" // change stream connector
	_ "github.com/idemcheck/idemcheck/targets/lb"        // lb
	_ "github.com/idemcheck/idemcheck/targets/mailbox"   // mailbox parser and API (C3)
	_ "github.com/idemcheck/idemcheck/targets/mrec"      // last-writer-wins replicator between Regions (G1)
	_ "github.com/idemcheck/idemcheck/targets/push"      // push provider
	_ "github.com/idemcheck/idemcheck/targets/reactions" // reactions (C2)
	_ "github.com/idemcheck/idemcheck/targets/relay"     // outbox relay
	_ "github.com/idemcheck/idemcheck/targets/resolver"  // resolver
	_ "github.com/idemcheck/idemcheck/targets/router"    // home-Region router
	_ "github.com/idemcheck/idemcheck/targets/streamjob" // stream job
	_ "github.com/idemcheck/idemcheck/targets/webhook"   // webhook
	_ "github.com/idemcheck/idemcheck/targets/worker"    // worker
)
