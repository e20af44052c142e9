package faults

import (
	"context"
	"errors"
)

// The Region family: a standby Region taking over.
var regionFaults = []Fault{RegionFailover}

// RegionFailover is the primary Region failing mid-replication and the
// standby, a replication lag behind, taking over (SCENARIOS.md G2). The
// harness that runs the Regions does it (System.Regions.Failover); after it
// there is no replication left to lag.
var RegionFailover Fault = regionFailover{}

type regionFailover struct{}

func (regionFailover) Name() string   { return "region-failover" }
func (regionFailover) Family() Family { return FamilyRegion }
func (regionFailover) Ends() []string { return []string{"replication-lag"} }
func (regionFailover) Applies(sys *System) (bool, string) {
	if sys.Regions == nil || sys.Regions.Failover == nil {
		return false, "one Region: no standby to take over"
	}
	return true, ""
}

func (regionFailover) Inject(ctx context.Context, sys *System, s Scope) (Injection, error) {
	if sys.Regions == nil || sys.Regions.Failover == nil {
		return nil, errors.New("one Region: no standby to take over")
	}
	return sys.Regions.Failover(ctx, s)
}
