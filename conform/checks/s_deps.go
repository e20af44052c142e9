package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// DepsCheck loses one reply on each link between the target and its own
// dependencies (its database, its PSP) during a create, then retries.
func DepsCheck() *scenario.Check {
	return &scenario.Check{ID: "S-deps", Title: "a dependency's reply lost (Toxiproxy links of the config)", Level: scenario.Safety,
		Rule: "dependency links; SCENARIOS.md A1 (gray failure)", Needs: func(e *scenario.Env) string {
			if len(e.Links) == 0 {
				return "no toxiproxy.links in the config"
			}
			return ""
		}, Run: runDeps}
}

func runDeps(ctx context.Context, e *scenario.Env, t *scenario.T) {
	var ins []scenario.Intent
	var why []string
	for _, dl := range e.Links {
		in := e.NewIntent(0)
		ins = append(ins, in)
		undo, err := dl.Link.LoseReply()
		if err != nil {
			t.Errorf("link %s: %v", dl.Name, err)
			return
		}
		before := dl.Link.Fired()
		start := history.Now()
		a := t.Send(ctx, fmt.Sprintf("the reply from %s is lost", dl.Name), in, nil)
		_ = undo()
		e.NoteFault("reply lost on link "+dl.Name, start, history.Now())
		if dl.Link.Fired() == before && dl.Blind != "" {
			t.Inconclusive("no lost reply on link "+dl.Name+" can be seen", "%s", dl.Blind)
			return
		}
		if dl.Link.Fired() == before {
			// The service did not use the link it was given: its doing.
			t.Inconclusive("the fault (reply lost on link "+dl.Name+") fired",
				"no reply of the create crossed link %s (the create was answered %s): is the service pointed at $%s_ADDR?", dl.Name, scenario.DescribeResp(a), dl.Name)
			return
		}
		rs := t.RetryUntilFinal(ctx, "client retries", in, 20, 200*time.Millisecond, nil)
		why = append(why, fmt.Sprintf("%s: %s then %s", dl.Name, scenario.DescribeResp(a), scenario.DescribeResp(scenario.Last(rs))))
	}
	t.Judge(ctx, nil, ins...)
	t.Passf("%v", why)
}
