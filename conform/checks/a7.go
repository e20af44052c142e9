package checks

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

func runA7(ctx context.Context, e *scenario.Env, t *scenario.T) {
	tp, err := e.Proxy()
	if err != nil {
		t.Errorf("start Toxiproxy: %v", err)
		return
	}
	u, err := url.Parse(e.D.Bases()[0])
	if err != nil || u.Scheme != "http" {
		t.NotApplicable("the first base URL is not plain http, Toxiproxy cannot cut its replies")
		return
	}
	in := e.NewIntent(0)
	l, err := tp.Link(fmt.Sprintf("a7-%d", in.Meaning.Amount), u.Host)
	if err != nil {
		t.Errorf("Toxiproxy link to %s: %v", u.Host, err)
		return
	}
	undo, err := l.LoseReply()
	if err != nil {
		t.Errorf("Toxiproxy lose reply: %v", err)
		return
	}
	start := history.Now()
	a := t.Send(ctx, "request reaches the target, its reply is lost", in, func(s *driver.Send) { s.Via = "http://" + l.Addr() })
	_ = undo()
	e.NoteFault("A7 client reply lost", start, history.Now())
	if l.Fired() == 0 {
		// No reply bytes to drop: the service never answered.
		t.Inconclusive("the fault (the client's reply lost) fired", "the service sent no reply to drop (%s)", scenario.DescribeResp(a))
		return
	}
	if !a.Unknown() {
		t.Errorf("the lost-reply fault dropped a reply, yet the client heard %s", scenario.DescribeResp(a))
		return
	}
	rs := t.RetryUntilFinal(ctx, "client retries directly", in, 20, 200*time.Millisecond, nil)
	scenario.Lookup(ctx, e, t, rs)
	t.Judge(ctx, nil, in)
	t.Passf("lost reply, then %s", scenario.DescribeResp(scenario.Last(rs)))
}
