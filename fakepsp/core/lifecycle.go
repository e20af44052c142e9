package core

import (
	"context"
	"sync"
)

// Pauser blocks work while the PSP is paused.
type Pauser struct {
	mu      sync.Mutex
	running chan struct{} // closed while running, open while paused
}

// NewPauser starts running.
func NewPauser() *Pauser {
	ch := make(chan struct{})
	close(ch)
	return &Pauser{running: ch}
}

// Set pauses or resumes.
func (ps *Pauser) Set(paused bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	select {
	case <-ps.running: // running now
		if paused {
			ps.running = make(chan struct{})
		}
	default: // paused now
		if !paused {
			close(ps.running)
		}
	}
}

// Paused reports a pause.
func (ps *Pauser) Paused() bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	select {
	case <-ps.running:
		return false
	default:
		return true
	}
}

// Wait returns true once running; false if either context ends first.
func (ps *Pauser) Wait(a, b context.Context) bool {
	ps.mu.Lock()
	ch := ps.running
	ps.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-a.Done():
		return false
	case <-b.Done():
		return false
	}
}
