package worker

import (
	"testing"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

func TestEachSwitchTurnsOffOneGuard(t *testing.T) {
	want := map[mutant.Switch]Guards{
		mutant.WorkerNoInbox:       {ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		mutant.ReadUncommitted:     {Inbox: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		mutant.NoNotifRecord:       {Inbox: true, ReadCommitted: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		mutant.NoReplaceID:         {Inbox: true, ReadCommitted: true, NotifRecord: true, FinishOnRedelivery: true, DedupKey: true},
		mutant.AckOnlyOnRedelivery: {Inbox: true, ReadCommitted: true, NotifRecord: true, ReplaceID: true, DedupKey: true},
		mutant.NoDedupKey:          {Inbox: true, ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true},
	}
	for _, e := range mutant.Catalogue {
		if _, ok := want[e.Switch]; !ok && e.Tier == TierName {
			t.Errorf("catalogue switch %s of the worker is not in this test", e.Switch)
		}
	}
	for s, w := range want {
		if e := mutant.Lookup(s); e == nil || e.Tier != TierName {
			t.Errorf("%s: not a worker switch of the catalogue: %+v", s, e)
		}
		g, err := GuardsOf(mutant.Set{s: true})
		if err != nil || g != w {
			t.Errorf("%s: got %+v, %v; want %+v", s, g, err, w)
		}
	}
	g, err := GuardsOf(mutant.Set{mutant.WorkerNoInbox: true, mutant.ReadUncommitted: true})
	if err != nil || g.Inbox || g.ReadCommitted || !g.NotifRecord {
		t.Errorf("two switches: %+v, %v", g, err)
	}
	if g, err := GuardsOf(nil); err != nil || g != Reference() {
		t.Errorf("reference: %+v, %v", g, err)
	}
	if _, err := GuardsOf(mutant.Set{mutant.NoDeadline: true}); err == nil {
		t.Error("the API's switch accepted by the worker")
	}
}
