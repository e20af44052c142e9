package core

import "sync"

// HubAccount is an account of a dialect that keeps its events in a hub.
type HubAccount interface {
	Hub() *EventHub
	// Owns says whether a charge id is one of the account's payments.
	Owns(chargeID string) bool
}

// Accounts are a dialect's accounts by API key, under the host's lock,
// with the reads a Server answers for a harness over all of them.
type Accounts[A HubAccount] struct {
	Lock sync.Locker
	m    map[string]A
}

// Add files a under key unless one is there; it says whether it did.
func (s *Accounts[A]) Add(key string, a A) bool {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	if s.m == nil {
		s.m = map[string]A{}
	}
	if _, ok := s.m[key]; ok {
		return false
	}
	s.m[key] = a
	return true
}

// Get is the account of key (ok false: none).
func (s *Accounts[A]) Get(key string) (A, bool) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	a, ok := s.m[key]
	return a, ok
}

// Event is a raised event of any account, by id.
func (s *Accounts[A]) Event(id string) (EventInfo, bool) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	for _, a := range s.m {
		if i, ok := a.Hub().Event(id); ok {
			return i, true
		}
	}
	return EventInfo{}, false
}

// EventsAbout lists the events raised about one payment.
func (s *Accounts[A]) EventsAbout(payment string) []EventInfo {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	var out []EventInfo
	for _, a := range s.m {
		out = append(out, a.Hub().About(payment)...)
	}
	return out
}

// PaymentOfCharge: on a PSP whose charge is the payment itself (Adyen's
// pspReference, Checkout.com's pay_), the charge id when an account owns it.
func (s *Accounts[A]) PaymentOfCharge(chargeID string) string {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	for _, a := range s.m {
		if a.Owns(chargeID) {
			return chargeID
		}
	}
	return ""
}

// Workers are the delivery workers of every account's endpoints.
func (s *Accounts[A]) Workers() []*Worker {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	var ws []*Worker
	for _, a := range s.m {
		ws = append(ws, a.Hub().Workers()...)
	}
	return ws
}
