package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// The network family: toxics on Toxiproxy links.
var networkFaults = []Fault{
	ClientReplyLost,
	DependencyReplyLost,
	LinkLag{Link: "replication", Lag: 1500 * time.Millisecond},
}

// ClientReplyLost puts a fresh link in front of the target for one intent and
// loses every reply on it: the target acts, the client sees EOF.
var ClientReplyLost Fault = clientReplyLost{}

type clientReplyLost struct{}

var clientLinkSeq atomic.Int64

func (clientReplyLost) Name() string   { return "client-reply-lost" }
func (clientReplyLost) Family() Family { return FamilyNetwork }
func (clientReplyLost) Applies(sys *System) (bool, string) {
	if sys.Proxy == nil {
		return false, "no Toxiproxy"
	}
	if _, err := targetHost(sys); err != nil {
		return false, err.Error()
	}
	return true, ""
}

func (clientReplyLost) Inject(_ context.Context, sys *System, s Scope) (Injection, error) {
	host, err := targetHost(sys)
	if err != nil {
		return nil, err
	}
	tp, err := sys.Proxy()
	if err != nil {
		return nil, err
	}
	l, err := tp.Link(fmt.Sprintf("client-%d-%d", s.N, clientLinkSeq.Add(1)), host)
	if err != nil {
		return nil, err
	}
	undo, err := l.LoseReply()
	if err != nil {
		return nil, errors.Join(err, tp.Unlink(l))
	}
	return routed{&injection{fired: l.Fired, via: "http://" + l.Addr(), undo: func() error {
		err := undo()
		// Disabling counts as a firing on the link: read Fired first.
		_, _ = l.Disable()
		return errors.Join(err, tp.Unlink(l))
	}}}, nil
}

// DependencyReplyLost loses the replies on one of the target's dependency
// links (the intent picks which): every request crossing it meanwhile is
// executed and its answer lost, which is part of the chaos.
var DependencyReplyLost Fault = depReplyLost{}

type depReplyLost struct{}

func (depReplyLost) Name() string   { return "dependency-reply-lost" }
func (depReplyLost) Family() Family { return FamilyNetwork }
func (depReplyLost) Applies(sys *System) (bool, string) {
	if len(sys.Links) == 0 {
		return false, "no dependency links"
	}
	return true, ""
}

func (depReplyLost) Inject(_ context.Context, sys *System, s Scope) (Injection, error) {
	if len(sys.Links) == 0 {
		return nil, fmt.Errorf("no dependency links")
	}
	l := sys.Links[pick(s, len(sys.Links))].Link
	before := l.Fired()
	undo, err := l.LoseReply()
	if err != nil {
		return nil, err
	}
	var fired atomic.Int64
	fired.Store(-1)
	return &injection{
		fired: func() int64 {
			if n := fired.Load(); n >= 0 {
				return n
			}
			return l.Fired() - before
		},
		undo: func() error {
			fired.Store(l.Fired() - before)
			return undo()
		}}, nil
}

// LinkLag delays every chunk on the links whose name contains Link (a
// Region's replication: a standby Region's links, or a target's own link of
// that name) by Lag, counting the chunks it held.
type LinkLag struct {
	Link string
	Lag  time.Duration
}

func (f LinkLag) Name() string   { return f.Link + "-lag" }
func (f LinkLag) Family() Family { return FamilyNetwork }
func (f LinkLag) links(sys *System) []*Link {
	var out []*Link
	all := sys.Links
	if sys.Regions != nil {
		all = append(append([]NamedLink(nil), all...), sys.Regions.Replication...)
	}
	for _, l := range all {
		if strings.Contains(l.Name, f.Link) {
			out = append(out, l.Link)
		}
	}
	return out
}

func (f LinkLag) Applies(sys *System) (bool, string) {
	if len(f.links(sys)) == 0 {
		return false, fmt.Sprintf("no %s link", f.Link)
	}
	return true, ""
}

func (f LinkLag) Inject(_ context.Context, sys *System, _ Scope) (Injection, error) {
	var undos []Undo
	var counts []func() int64
	for _, l := range f.links(sys) {
		undo, count, err := l.Lag(Downstream, f.Lag)
		if err != nil {
			for _, u := range undos {
				_ = u()
			}
			return nil, err
		}
		undos, counts = append(undos, undo), append(counts, count)
	}
	fired := func() int64 {
		var n int64
		for _, c := range counts {
			n += c()
		}
		return n
	}
	return &injection{
		fired: fired,
		undo: func() error {
			// The intent's own writes reach the lag after any lag the link
			// already carries (a Region's): keep it until it held one of
			// them, or for a while, so a quick intent does not leave it
			// unfired.
			for end := time.Now().Add(f.Lag + time.Second); fired() == 0 && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
			}
			var first error
			for _, u := range undos {
				if err := u(); err != nil && first == nil {
					first = err
				}
			}
			return first
		}}, nil
}
