package router

import (
	"testing"

	"github.com/idemcheck/idemcheck/targets/mutant"
)

func TestPickHomeNearestAndFailover(t *testing.T) {
	regions := map[string]string{"R1": "http://r1", "R2": "http://r2"}
	ref, err := New(regions, map[string]string{"u1": "R1", "u9": "R2"}, "R1", mutant.Set{})
	if err != nil {
		t.Fatal(err)
	}
	if r, u := ref.Pick("u1", "R2"); r != "R1" || u != "http://r1" {
		t.Errorf("reference: u1 near R2 went to %s %s, want its home R1", r, u)
	}
	if r, _ := ref.Pick("u9", "R1"); r != "R2" {
		t.Errorf("reference: u9 went to %s, want its home R2", r)
	}
	if r, _ := ref.Pick("u5", ""); r != "R1" {
		t.Errorf("reference: unlisted caller went to %s, want the default R1", r)
	}
	if err := ref.Fail("R1", "R2"); err != nil {
		t.Fatal(err)
	}
	if r, _ := ref.Pick("u1", "R1"); r != "R2" {
		t.Errorf("after failover u1 went to %s, want R2", r)
	}
	ref.Restore("R1")
	if r, _ := ref.Pick("u1", "R1"); r != "R1" {
		t.Errorf("after restore u1 went to %s, want R1", r)
	}
	if err := ref.Fail("R1", "R3"); err == nil {
		t.Error("failover to an unknown Region accepted")
	}

	mut, err := New(regions, map[string]string{"u1": "R1"}, "R1", mutant.Set{mutant.NearestRegion: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := mut.Pick("u1", "R2"); r != "R2" {
		t.Errorf("mutant: u1 near R2 went to %s, want R2", r)
	}
	if r, _ := mut.Pick("u1", "R7"); r != "R1" {
		t.Errorf("mutant: unknown nearest hint went to %s, want home R1", r)
	}
}

func TestNewAndFlagsRejectBadInput(t *testing.T) {
	if _, err := New(map[string]string{"R1": "http://r1"}, nil, "R2", mutant.Set{}); err == nil {
		t.Error("default home outside the Regions accepted")
	}
	if _, err := New(map[string]string{"R1": "http://r1"}, map[string]string{"u1": "R3"}, "R1", mutant.Set{}); err == nil {
		t.Error("home Region outside the Regions accepted")
	}
	if _, err := ParsePairs("regions", "R1=http://a,R2"); err == nil {
		t.Error("pair without = accepted")
	}
	m, err := ParsePairs("home", " u1=R1 , u2=R2/,")
	if err != nil || m["u1"] != "R1" || m["u2"] != "R2" || len(m) != 2 {
		t.Errorf("ParsePairs = %v, %v", m, err)
	}
	rt, _ := New(map[string]string{"R1": "http://r1"}, nil, "R1", mutant.Set{})
	if err := rt.SetRegion("R2", "r2:80"); err == nil {
		t.Error("Region URL without a scheme accepted")
	}
}
