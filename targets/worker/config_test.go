package worker

import "testing"

func TestMutantsSwitchOffExactlyTheirGuards(t *testing.T) {
	want := map[string]Guards{
		"worker-no-inbox":                   {ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		"consumer-relies-on-producer-dedup": {ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		"no-inbox":                          {ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		"read-uncommitted-no-inbox":         {NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		"no-notif-record-no-replace-id":     {Inbox: true, ReadCommitted: true, FinishOnRedelivery: true, DedupKey: true},
		"replace-id-no-record":              {Inbox: true, ReadCommitted: true, ReplaceID: true, FinishOnRedelivery: true, DedupKey: true},
		"ack-only-on-redelivery":            {Inbox: true, ReadCommitted: true, NotifRecord: true, ReplaceID: true, DedupKey: true},
		"no-dedup-key":                      {Inbox: true, ReadCommitted: true, NotifRecord: true, ReplaceID: true, FinishOnRedelivery: true},
	}
	if len(want) != len(Mutants) {
		t.Fatalf("%d mutants, test knows %d", len(Mutants), len(want))
	}
	for name, w := range want {
		g, err := GuardsFor(name)
		if err != nil || g != w {
			t.Errorf("%s: got %+v, %v; want %+v", name, g, err, w)
		}
	}
	if g, err := GuardsFor(""); err != nil || g != Reference() {
		t.Errorf("reference: %+v, %v", g, err)
	}
	if _, err := GuardsFor("no-such"); err == nil {
		t.Error("unknown mutant accepted")
	}
}
